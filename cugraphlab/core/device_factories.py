"""What a Device makes in its context: arrays, streams, events, modules and the kernel set (a mixin of core.device's
Device; each class is imported on use, for it lives on a higher floor).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .memory import DeviceArray
    from .module import KernelSet, Module
    from .stream import Event, Stream

__all__ = ["DeviceFactories"]


class DeviceFactories:
    """The factories of :class:`core.device.Device`: each passes the Device itself to the object it makes, which
    takes a lease of the Device's context (core/lease.py) and so stays usable after the Device is closed."""

    def array(self, n: int, dtype="float32") -> "DeviceArray":
        """A new, uninitialised device array of ``n`` elements (cuMemAlloc).

        Parameters
        ----------
        n : int
            Elements, >= 1.
        dtype : str or numpy.dtype, optional
            float32 by default.

        Returns
        -------
        DeviceArray
            Owned: freed by ``close()`` or the garbage collector.

        Raises
        ------
        InvalidArgumentError
            ``n`` is not an integer >= 1.
        DeviceMemoryError
            The device has not that much free memory (the message says how much it has).

        See Also
        --------
        cuMemAlloc : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1gb82d2a09844a58dd9e744dc31e8aa467
        """
        from .memory import DeviceArray

        return DeviceArray(self, n, dtype)

    def to_device(self, host) -> "DeviceArray":
        """A device array holding a copy of the NumPy array ``host`` (DeviceArray.from_numpy).

        Parameters
        ----------
        host : numpy.ndarray
            1-D, of any NumPy dtype.

        Returns
        -------
        DeviceArray
            Owned, of ``host``'s dtype and size.

        Raises
        ------
        InvalidArgumentError
            ``host`` is not 1-D.
        DeviceMemoryError
            The device has not that much free memory.
        """
        from .memory import DeviceArray

        return DeviceArray.from_numpy(self, host)

    def create_stream(self, non_blocking: bool = True) -> "Stream":
        """A new Stream on this device (cuStreamCreate; non-blocking with respect to the legacy stream by default).

        Parameters
        ----------
        non_blocking : bool, optional
            True (default): CU_STREAM_NON_BLOCKING.

        Returns
        -------
        Stream
            Owned: destroyed by ``close()`` or the garbage collector.

        Raises
        ------
        CugraphlabError
            The Device is closed.
        CudaError
            cuStreamCreate failed.

        See Also
        --------
        cuStreamCreate : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1ga581f0c5833e21ded8b5a56594e243f4
        """
        from .stream import Stream

        return Stream(self, non_blocking)

    def create_event(self, timing: bool = True) -> "Event":
        """A new Event (cuEventCreate); ``timing=False`` makes a cheaper event that only orders work.

        Parameters
        ----------
        timing : bool, optional
            True (default): the event can time (``elapsed_us``).

        Returns
        -------
        Event
            Owned: destroyed by ``close()`` or the garbage collector.

        Raises
        ------
        CugraphlabError
            The Device is closed.
        CudaError
            cuEventCreate failed.

        See Also
        --------
        cuEventCreate : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1g450687e75f3ff992fe01662a43d9d3db
        """
        from .stream import Event

        return Event(self, timing)

    def load_module(self, image) -> "Module":
        """A cubin or PTX image (bytes, or the ``Compiled`` of compile_source, whose arch is checked against this
        device first) loaded into this device's context (cuModuleLoadData).

        Parameters
        ----------
        image : bytes or Compiled
            What NVRTC (or nvcc) made.

        Returns
        -------
        Module
            Owned: unloaded by ``close()`` or the garbage collector; ``module.kernel(name)`` finds a kernel.

        Raises
        ------
        InvalidArgumentError
            A ``Compiled`` for another arch than this device's.
        CudaError
            cuModuleLoadData refused the image.

        See Also
        --------
        cuModuleLoadData : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html#group__CUDA__MODULE_1g04ce266ce03720f479eab76136b90c0b
        """
        from .module import Module

        return Module(self, image)

    def load_kernels(self, **kwargs) -> "KernelSet":
        """The package's kernel set compiled (or taken from the cache) for this device.

        Parameters
        ----------
        **kwargs
            As ``KernelSet.load`` takes them: ``names`` (which kernel files), ``options`` (NVRTC options),
            ``cache`` (a Cache, or None for the default one).

        Returns
        -------
        KernelSet
            ``ks["add"]`` is a Kernel; closing it unloads its modules.

        Raises
        ------
        CompileError
            NVRTC refused a kernel (its log in the message).
        CudaError
            cuModuleLoadData refused an image.
        """
        from .module import KernelSet

        return KernelSet.load(self, **kwargs)
