"""Driver initialisation, devices and their primary contexts.

This is the only module that knows how cuda.bindings reports a missing driver (a cuda.pathfinder
``DynamicLibNotFoundError``, not a CUresult) and how device attributes are spelled.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from ._calls import check_driver_matches_bindings, cu, driver_cuda_version, driver_fn, driver_module
from ._resource import Resource
from .current import current_compute_capability, current_device, register_device
from .device_factories import DeviceFactories
from .errors import InvalidArgumentError, NoDeviceError, check

__all__ = ["init", "device_count", "driver_version", "compute_capability_of", "current_compute_capability",
           "current_device", "Device", "opened"]

_init_lock = threading.Lock()
_initialised = False


def init() -> None:
    """cuInit(0) once per process (later calls return at once), then the check that driver and bindings fit.

    Raises
    ------
    NoDeviceError
        No driver library, no visible device, or a driver too old for the installed cuda-bindings
        (DriverMismatchError, naming the install that fits).
    CudaError
        cuInit failed otherwise.

    See Also
    --------
    cuInit : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html#group__CUDA__INITIALIZE_1g0a2f1517e1bd8502c7194c3a8c134bc3
    """
    global _initialised
    if _initialised:
        return
    with _init_lock:
        if _initialised:
            return
        try:
            result = driver_fn("cuInit")(0)
        except NoDeviceError:
            raise
        except Exception as e:  # cuda.pathfinder raises when libcuda.so cannot be found at all
            raise NoDeviceError(
                "no NVIDIA driver found (libcuda.so.1 could not be loaded): this command needs a machine with an "
                "NVIDIA GPU and its driver; compile, diff, show and info run without one"
            ) from e
        status = result[0]
        if status != 0:
            name = getattr(status, "name", str(status))
            if name in ("CUDA_ERROR_NO_DEVICE", "CUDA_ERROR_INVALID_DEVICE", "CUDA_ERROR_NOT_FOUND"):
                raise NoDeviceError(f"cuInit: {name}: no CUDA device is visible; check nvidia-smi and "
                                    "CUDA_VISIBLE_DEVICES")
            check(result, "cuInit")
        check_driver_matches_bindings()  # DriverMismatchError (a NoDeviceError): one line naming the install
        _initialised = True


def device_count() -> int:
    """Number of CUDA devices the driver sees (after ``init``).

    Returns
    -------
    int
        Devices visible to this process (CUDA_VISIBLE_DEVICES applies).

    Raises
    ------
    NoDeviceError
        No driver, or no device.
    CudaError
        cuDeviceGetCount failed.

    See Also
    --------
    cuDeviceGetCount : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html#group__CUDA__DEVICE_1g52b5ce05cb8c5fb6831b2c0ff2887c74
    """
    init()
    return cu("cuDeviceGetCount")


def driver_version() -> tuple[int, int]:
    """The CUDA version the driver supports, as (major, minor), e.g. (13, 0).

    Returns
    -------
    tuple of int
        (major, minor) of cuDriverGetVersion's number.

    Raises
    ------
    NoDeviceError
        No driver, or no device.
    CudaError
        cuDriverGetVersion failed.

    See Also
    --------
    cuDriverGetVersion : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VERSION.html#group__CUDA__VERSION_1g8b7a10395392e049006e61bcdc8ebe71
    """
    init()
    return driver_cuda_version()


def _attr(name: str):
    return getattr(driver_module().CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name)


def compute_capability_of(ordinal: int = 0) -> tuple[int, int]:
    """(major, minor) of device ``ordinal``, read from its attributes (cuDeviceGet + cuDeviceGetAttribute) without
    creating or retaining a context; NoDeviceError where there is no driver or no such device."""
    count = device_count()
    if not 0 <= ordinal < count:
        raise NoDeviceError(f"there is no CUDA device {ordinal}: the driver reports {count}")
    dev = cu("cuDeviceGet", ordinal)
    return (cu("cuDeviceGetAttribute", _attr("COMPUTE_CAPABILITY_MAJOR"), dev),
            cu("cuDeviceGetAttribute", _attr("COMPUTE_CAPABILITY_MINOR"), dev))


class Device(Resource, DeviceFactories):
    """One CUDA device with its primary context made current on this thread.

    Dependent objects come from factories (``device.array(...)``, ``device.create_stream()``,
    ``device.load_kernels()``: core.device_factories); each keeps the primary context alive with a retain of its own (``lease_context``,
    core/lease.py) until it is closed or collected. ``close()`` gives up the Device's own retain only, so objects
    left open stay usable and are freed before the context, in whatever order they die.

    Parameters
    ----------
    ordinal : int, optional
        The device index as the driver counts them (CUDA_VISIBLE_DEVICES applies), 0 by default.

    Raises
    ------
    InvalidArgumentError
        ``ordinal`` is not an integer >= 0.
    NoDeviceError
        No driver, no device, no device ``ordinal``, or a driver too old for the installed cuda-bindings
        (DriverMismatchError, naming the install that fits).
    CudaError
        A driver call failed (cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent, ...).
    """

    def __init__(self, ordinal: int = 0):
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 0:
            raise InvalidArgumentError(f"device index must be an integer >= 0, got {ordinal!r}")
        init()
        count = device_count()
        if ordinal >= count:
            have = ", ".join(str(i) for i in range(count)) or "none"
            raise NoDeviceError(f"there is no CUDA device {ordinal}: this machine has {count} (indices: {have})")
        self.ordinal = ordinal
        self.handle = cu("cuDeviceGet", ordinal)
        self.context = cu("cuDevicePrimaryCtxRetain", self.handle)
        handle = self.handle

        def release() -> None:
            cu("cuDevicePrimaryCtxRelease", handle)

        self._own(release)
        try:
            cu("cuCtxSetCurrent", self.context)
            self._read_properties()
        except BaseException:
            self.close()
            raise
        register_device(self)

    def _read_properties(self) -> None:
        """Name, compute capability, SM count and memory of ``self.handle`` (a CUdevice), read once when made."""
        self.name = cu("cuDeviceGetName", 256, self.handle).split(b"\0", 1)[0].decode()
        self.compute_capability = (self.attribute("COMPUTE_CAPABILITY_MAJOR"),
                                   self.attribute("COMPUTE_CAPABILITY_MINOR"))
        self.sm_count = self.attribute("MULTIPROCESSOR_COUNT")
        self.total_memory = cu("cuDeviceTotalMem", self.handle)

    def lease_context(self):
        """A lease of this device's primary context for an object made in it (one more cuDevicePrimaryCtxRetain,
        released when the object is closed): see core/lease.py. Works on a closed Device while something made in
        it keeps its context alive (a graph instantiated after the Device was closed).

        Returns
        -------
        ContextLease
            Given back by the object's own release.

        Raises
        ------
        CugraphlabError
            The Device is closed and its context is gone (open a new Device).
        CudaError
            cuDevicePrimaryCtxRetain failed.
        """
        from .errors import CugraphlabError
        from .lease import ContextLease

        lease = ContextLease.of_primary(self.handle, self.context)
        if lease.context_now is not None and int(lease.context_now) != int(self.context):
            lease.give_back()  # the Device is closed and its context was destroyed: the retain made a new one
            raise CugraphlabError(f"Device {self.ordinal} is closed and its context is gone: open a new Device")
        return lease

    # --- queries -------------------------------------------------------------------------------------------
    def attribute(self, name: str) -> int:
        """A CU_DEVICE_ATTRIBUTE_* value by its short name, e.g. ``attribute("MULTIPROCESSOR_COUNT")``.

        Parameters
        ----------
        name : str
            The attribute's name without the ``CU_DEVICE_ATTRIBUTE_`` prefix.

        Returns
        -------
        int
            The value the driver reports.

        Raises
        ------
        InvalidArgumentError
            No such attribute in the installed cuda-bindings.
        CudaError
            cuDeviceGetAttribute failed.

        See Also
        --------
        cuDeviceGetAttribute : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html#group__CUDA__DEVICE_1g9c3e1414f0ad901d3278a4d6645fc266
        """
        try:
            attr = _attr(name)
        except AttributeError:
            raise InvalidArgumentError(f"unknown device attribute {name!r}") from None
        return cu("cuDeviceGetAttribute", attr, self.handle)

    @property
    def arch(self) -> str:
        """The device's own arch name, e.g. ``sm_90``."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"

    def make_current(self) -> None:
        """Make this device's primary context current on the calling thread (cuCtxSetCurrent).

        Raises
        ------
        CugraphlabError
            The Device is closed.
        CudaError
            cuCtxSetCurrent failed.

        See Also
        --------
        cuCtxSetCurrent : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html#group__CUDA__CTX_1gbe562ee6258b4fcc272ca6478ca2a2f7
        """
        self.require_open()
        cu("cuCtxSetCurrent", self.context)

    def synchronize(self) -> None:
        """Wait on the host for all work on this device's context (cuCtxSynchronize).

        Raises
        ------
        CugraphlabError
            The Device is closed.
        CudaError
            The context's work failed (an error of an earlier asynchronous launch surfaces here).

        See Also
        --------
        cuCtxSynchronize : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html#group__CUDA__CTX_1g7a54725f28d34b8c6299f0c6ca579616
        """
        self.require_open()
        cu("cuCtxSynchronize")

    def memory_info(self) -> tuple[int, int]:
        """(free, total) bytes on the device (cuMemGetInfo, in the current context).

        Returns
        -------
        tuple of int
            (free, total) in bytes.

        Raises
        ------
        CudaError
            cuMemGetInfo failed.

        See Also
        --------
        cuMemGetInfo : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1g808f555540d0143a331cc42aa98835c0
        """
        return cu("cuMemGetInfo")

    def describe(self) -> str:
        """"NVIDIA H200 (sm_90, 132 SMs, 140 GiB)": read when the Device was made, no driver call.

        Returns
        -------
        str
            Name, arch, SM count and memory.
        """
        major, minor = self.compute_capability
        return f"{self.name} (sm_{major}{minor}, {self.sm_count} SMs, {self.total_memory / 2**30:.0f} GiB)"

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.describe()
        return f"<Device {self.ordinal}: {state}>"


@contextmanager
def opened(device) -> Iterator[Device]:
    """``device`` for the block: a Device (anything with ``compute_capability``) borrowed as it is and left open, or
    an ordinal opened (``Device(device)``) and closed when the block ends, however it ends.

    Parameters
    ----------
    device : Device or int
        The Device to use, or the ordinal of one to open for the block.

    Yields
    ------
    Device
        ``device`` itself, or the Device opened for the block.

    Raises
    ------
    InvalidArgumentError
        An ordinal that is not an integer >= 0.
    NoDeviceError
        No driver, or no device of that ordinal.
    """
    if hasattr(device, "compute_capability"):
        yield device
        return
    dev = Device(device)
    try:
        yield dev
    finally:
        dev.close()
