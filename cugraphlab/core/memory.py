"""Device memory: float32 (or any NumPy dtype) arrays with NumPy copies in and out, and interop both ways.

``DeviceArray(device, n, dtype)`` allocates and owns (cuMemAlloc / cuMemFree). ``DeviceArray.wrap(obj)`` views
another library's device memory (a CuPy array, a torch tensor, a Numba or JAX array: anything with
``__cuda_array_interface__`` or ``__dlpack__``) without owning it: the wrapper keeps ``obj`` alive and never frees
it. Going out, a DeviceArray offers ``__cuda_array_interface__`` (v3: ``cupy.asarray(arr)``, Numba) and
``__dlpack__`` / ``__dlpack_device__`` (``torch.from_dlpack(arr)``, ``cupy.from_dlpack(arr)``): no copy either way.
The protocols themselves are in core.interop.

Driver API: cuMemAlloc, cuMemFree, cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemsetD32Async, cuStreamSynchronize
(CUDA Driver API, "Memory Management").
"""
from __future__ import annotations

import numpy as np

from ._calls import cu, driver_module
from ._resource import Resource
from .current import current_device
from .errors import CudaError, DeviceMemoryError, InvalidArgumentError, positive_int
from .interop import KDL_CUDA, foreign_array, pointer_device, to_dlpack, type_name
from .stream import as_stream

__all__ = ["DeviceArray", "POISON_BITS", "validate_size"]

# A quiet NaN with a recognisable payload: an element still holding it was never written.
POISON_BITS = 0x7FC0DEAD


def validate_size(n) -> int:
    """The element count as an int >= 1, or InvalidArgumentError."""
    return positive_int("size (elements)", n)


def _too_big(device, nbytes: int, e: CudaError) -> DeviceMemoryError:
    try:
        free, total = device.memory_info()
        have = f"{free:,} bytes are free of {total:,}"
    except Exception:  # the message matters more than the figure
        have = "the device has not that much free"
    return DeviceMemoryError(e.code, e.name, f"cuMemAlloc of {nbytes:,} bytes refused: {have}", "cuMemAlloc",
                             "use a smaller --size (or free the GPU's memory)")


class DeviceArray(Resource):
    """``n`` elements of ``dtype`` in device memory (cuMemAlloc), freed by ``close()`` or the garbage collector.

    ``ptr`` is the device address as an int. ``__cuda_array_interface__`` lets CuPy (and others) use it without
    a copy: ``cupy.asarray(arr)``; ``__dlpack__`` lets PyTorch, CuPy and JAX do the same: ``torch.from_dlpack(arr)``.
    ``owned``: whether ``close()`` frees the memory (False for ``DeviceArray.wrap``).
    """

    owned = True
    protocol: str  # a wrapped array's: the protocol that answered (DeviceArray.wrap)
    _keep: list  # a wrapped array's: what keeps the memory alive until close()

    def __init__(self, device, n: int, dtype="float32"):
        self.n = validate_size(n)
        self.dtype = np.dtype(dtype)
        self.nbytes = self.n * self.dtype.itemsize
        self.device = device
        device.require_open()
        self._live_in(device)
        try:
            self.handle = cu("cuMemAlloc", self.nbytes)
        except CudaError as e:
            if e.name != "CUDA_ERROR_OUT_OF_MEMORY":
                raise
            raise _too_big(device, self.nbytes, e) from None
        self.ptr = int(self.handle)
        handle = self.handle
        self._own(lambda: cu("cuMemFree", handle))

    @classmethod
    def wrap(cls, obj, device=None) -> "DeviceArray":
        """A DeviceArray viewing another library's device memory, without a copy and without owning it.

        ``obj``: anything with ``__cuda_array_interface__`` (v2/v3: CuPy, PyTorch CUDA tensors, Numba) or
        ``__dlpack__`` (PyTorch, JAX, CuPy) that is C-contiguous and of a NumPy dtype; its elements become the
        array's ``n`` (all dimensions flattened). ``device``: the Device it is on (default: the open Device whose
        context is current; the memory's own device must match it). The wrapper keeps ``obj`` alive until it is
        closed or collected, and never frees the memory (``owned`` is False). A cugraphlab DeviceArray is
        returned as it is. Raises InvalidArgumentError (one line) for host memory, a non-contiguous array, memory
        of another device, or a dtype NumPy does not have.
        """
        if isinstance(obj, DeviceArray):
            return obj
        what = f"DeviceArray.wrap({type_name(obj)})"
        fa = foreign_array(obj, what)
        if not fa.contiguous:
            raise InvalidArgumentError(f"{what}: the array is not C-contiguous (shape {fa.shape}): wrap a "
                                       "contiguous copy")
        if fa.dtype is None:
            raise InvalidArgumentError(f"{what}: its element type has no NumPy dtype (item size {fa.itemsize})")
        if device is None:
            device = current_device()
        if device is not None and fa.ptr:
            try:
                ordinal = fa.device if fa.device is not None else pointer_device(fa.ptr)
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"{what}: {e}") from None
            if ordinal is not None and ordinal != device.ordinal:
                raise InvalidArgumentError(f"{what}: the memory is on CUDA device {ordinal}, not on device "
                                           f"{device.ordinal}")
        self = cls.__new__(cls)
        self.n = fa.size
        self.dtype = np.dtype(fa.dtype)
        self.nbytes = fa.nbytes
        self.device = device
        self.ptr = fa.ptr
        self.handle = driver_module().CUdeviceptr(fa.ptr)
        self.owned = False
        self.protocol = fa.protocol
        keep = list(fa.owner)
        self._own(keep.clear)  # closing lets go of the owner; the memory is the owner's to free
        self._keep = keep
        return self

    @property
    def owner(self):
        """For a wrapped array, the object whose memory this is (None once closed, or for an owned array)."""
        keep = getattr(self, "_keep", None)
        return keep[0] if keep else None

    @classmethod
    def from_numpy(cls, device, host: np.ndarray) -> "DeviceArray":
        """A new device array holding a copy of the 1-D NumPy array ``host`` (cuMemAlloc + cuMemcpyHtoDAsync)."""
        host = np.ascontiguousarray(host)
        if host.ndim != 1:
            raise InvalidArgumentError(f"expected a 1-D array, got shape {host.shape}")
        arr = cls(device, host.size, host.dtype)
        try:
            arr.copy_from(host)
        except BaseException:
            arr.close()
            raise
        return arr

    def _host_view(self, host: np.ndarray) -> np.ndarray:
        if not isinstance(host, np.ndarray) or host.dtype != self.dtype or host.size != self.n:
            got = f"{getattr(host, 'dtype', type(host).__name__)}[{getattr(host, 'size', '?')}]"
            raise InvalidArgumentError(f"host array must be {self.dtype}[{self.n}], got {got}")
        if not host.flags.c_contiguous:
            raise InvalidArgumentError("host array must be C-contiguous")
        return host

    # Transfers never touch the legacy default stream. Measured on the H200: a context in which cuMemsetD32 on the
    # legacy stream was followed by Python-fed launches on another stream replayed graphs ~7% slower from then on
    # (docs/studies/legacy-stream.md). With ``stream`` the operation is ordered on it; without, it waits for the
    # whole context first and runs on the per-thread default stream. Either way it returns when it is done.
    def _begin(self, stream):
        self.require_open()
        if stream is None:
            cu("cuCtxSynchronize")  # work on other streams that uses this memory must be done first
            return driver_module().CU_STREAM_PER_THREAD
        return as_stream(stream).handle  # a Stream, or a CuPy / PyTorch / cuda.core stream

    def copy_from(self, host: np.ndarray, stream=None) -> None:
        """Copy a NumPy array of the same dtype and size into device memory; returns when the copy is done."""
        host = self._host_view(host)
        h = self._begin(stream)
        cu("cuMemcpyHtoDAsync", self.handle, host.ctypes.data, self.nbytes, h)
        cu("cuStreamSynchronize", h)

    def to_numpy(self, out: np.ndarray | None = None, stream=None) -> np.ndarray:
        """Copy device memory back into a new (or the given) NumPy array; returns when the copy is done."""
        out = np.empty(self.n, self.dtype) if out is None else self._host_view(out)
        h = self._begin(stream)
        cu("cuMemcpyDtoHAsync", out.ctypes.data, self.handle, self.nbytes, h)
        cu("cuStreamSynchronize", h)
        return out

    def fill_bits(self, bits: int, stream=None) -> None:
        """Set every 4-byte element to the 32-bit pattern ``bits`` (cuMemsetD32Async); returns when done."""
        if self.dtype.itemsize != 4:
            raise InvalidArgumentError("fill_bits works on 4-byte dtypes only")
        h = self._begin(stream)
        cu("cuMemsetD32Async", self.handle, bits & 0xFFFFFFFF, self.n, h)
        cu("cuStreamSynchronize", h)

    def poison(self, stream=None) -> None:
        """Fill with a NaN pattern so that any element a kernel fails to write shows up in a comparison."""
        self.fill_bits(POISON_BITS, stream)

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface v3 (no ``stream``: the array's own operations return when done; order kernels
        launched on your streams yourself)."""
        self.require_open()
        return {"shape": (self.n,), "typestr": self.dtype.str, "data": (self.ptr, False), "version": 3,
                "strides": None}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array (no copy), for ``torch.from_dlpack``, ``cupy.from_dlpack``, ... The
        consumer's ``stream`` (anything but -1) synchronizes the context first. See core.interop.to_dlpack."""
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLCUDA, device ordinal)."""
        self.require_open()
        if self.device is not None:
            return (KDL_CUDA, int(self.device.ordinal))
        ordinal = pointer_device(self.ptr) if self.ptr else None
        return (KDL_CUDA, int(ordinal or 0))

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        state = "closed" if self.closed else hex(self.ptr)
        borrowed = "" if self.owned else f" (wrapped, {self.protocol})"
        return f"<DeviceArray {self.dtype}[{self.n}] at {state}{borrowed}>"
