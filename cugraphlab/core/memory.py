"""Device memory: float32 (or any NumPy dtype) arrays with NumPy copies in and out and CuPy interop."""
from __future__ import annotations

import numpy as np

from ._calls import cu, driver_module
from .errors import CudaError, DeviceMemoryError, InvalidArgumentError, positive_int
from ._resource import Resource

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
    a copy: ``cupy.asarray(arr)``.
    """

    def __init__(self, device, n: int, dtype="float32"):
        self.n = validate_size(n)
        self.dtype = np.dtype(dtype)
        self.nbytes = self.n * self.dtype.itemsize
        self.device = device
        device.require_open()
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
        return stream.handle

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
        self.require_open()
        return {"shape": (self.n,), "typestr": self.dtype.str, "data": (self.ptr, False), "version": 3,
                "strides": None}

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        state = "closed" if self.closed else hex(self.ptr)
        return f"<DeviceArray {self.dtype}[{self.n}] at {state}>"
