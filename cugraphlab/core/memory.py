"""Device memory: float32 (or any NumPy dtype) arrays with NumPy copies in and out, and interop both ways.

``DeviceArray(device, n, dtype)`` allocates and owns (cuMemAlloc / cuMemFree). ``DeviceArray.wrap(obj)`` views
another library's device memory (a CuPy array, a torch tensor, a Numba or JAX array: anything with
``__cuda_array_interface__`` or ``__dlpack__``) without owning it: the wrapper keeps ``obj`` alive and never frees
it. Going out, a DeviceArray offers ``__cuda_array_interface__`` (v3: ``cupy.asarray(arr)``, Numba) and
``__dlpack__`` / ``__dlpack_device__`` (``torch.from_dlpack(arr)``, ``cupy.from_dlpack(arr)``): no copy either way.
The protocols themselves are in core.interop, DeviceArray's side of them in core.array_interop.

Driver API: cuMemAlloc, cuMemFree, cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemsetD32Async, cuStreamSynchronize
(CUDA Driver API, "Memory Management").
"""
from __future__ import annotations

import numpy as np

from ._calls import cu, driver_module
from ._resource import Resource
from .array_interop import ArrayInterop
from .errors import CudaError, DeviceMemoryError, InvalidArgumentError, positive_int
from .stream import as_stream

__all__ = ["DeviceArray", "POISON_BITS", "validate_size"]

# A quiet NaN with a recognisable payload: an element still holding it was never written.
POISON_BITS = 0x7FC0DEAD


def validate_size(n) -> int:
    """The element count as an int >= 1, or InvalidArgumentError."""
    return positive_int("size", n)


def _too_big(device, nbytes: int, e: CudaError) -> DeviceMemoryError:
    try:
        free, total = device.memory_info()
        have = f"{free:,} bytes are free of {total:,}"
    except Exception:  # the message matters more than the figure
        have = "the device has not that much free"
    return DeviceMemoryError(e.code, e.name, f"cuMemAlloc of {nbytes:,} bytes refused: {have}", "cuMemAlloc",
                             "use a smaller size (or free the GPU's memory)")


class DeviceArray(Resource, ArrayInterop):
    """``n`` elements of ``dtype`` in device memory (cuMemAlloc), freed by ``close()`` or the garbage collector.

    ``ptr`` is the device address as an int. ``__cuda_array_interface__`` lets CuPy (and others) use it without
    a copy: ``cupy.asarray(arr)``; ``__dlpack__`` lets PyTorch, CuPy and JAX do the same: ``torch.from_dlpack(arr)``.
    ``owned``: whether ``close()`` frees the memory (False for ``DeviceArray.wrap``).

    Parameters
    ----------
    device : Device
        The open Device whose context the memory is allocated in.
    n : int
        Elements, >= 1.
    dtype : str or numpy.dtype, optional
        float32 by default.

    Raises
    ------
    InvalidArgumentError
        ``n`` is not an integer >= 1.
    DeviceMemoryError
        CUDA_ERROR_OUT_OF_MEMORY, with how much the device has free.
    CudaError
        cuMemAlloc failed otherwise.

    See Also
    --------
    cuMemAlloc : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1gb82d2a09844a58dd9e744dc31e8aa467
    """

    owned = True

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
    def from_numpy(cls, device, host: np.ndarray) -> "DeviceArray":
        """A new device array holding a copy of the 1-D NumPy array ``host`` (cuMemAlloc + cuMemcpyHtoDAsync).

        Parameters
        ----------
        device : Device
            Where to allocate.
        host : numpy.ndarray
            1-D, of any NumPy dtype (made C-contiguous first).

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
        CudaError
            The copy failed.
        """
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
        """Copy a NumPy array of the same dtype and size into device memory; returns when the copy is done.

        Parameters
        ----------
        host : numpy.ndarray
            C-contiguous, of this array's dtype and size.
        stream : Stream or object, optional
            Ordered on it (a Stream, or anything ``Stream.wrap`` takes); None (default): the whole context is
            waited for first, and the operation runs on the per-thread default stream.

        Raises
        ------
        InvalidArgumentError
            ``host`` of another dtype or size, or not C-contiguous.
        CugraphlabError
            The array is closed.
        CudaError
            cuMemcpyHtoDAsync or the wait after it failed.

        See Also
        --------
        cuMemcpyHtoDAsync : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1g1572263fe2597d7ba4f6964597a354a3
        """
        host = self._host_view(host)
        h = self._begin(stream)
        cu("cuMemcpyHtoDAsync", self.handle, host.ctypes.data, self.nbytes, h)
        cu("cuStreamSynchronize", h)

    def to_numpy(self, out: np.ndarray | None = None, stream=None) -> np.ndarray:
        """Copy device memory back into a new (or the given) NumPy array; returns when the copy is done.

        Parameters
        ----------
        out : numpy.ndarray, optional
            C-contiguous, of this array's dtype and size; None (default): a new array.
        stream : Stream or object, optional
            Ordered on it (a Stream, or anything ``Stream.wrap`` takes); None (default): the whole context is
            waited for first, and the operation runs on the per-thread default stream.

        Returns
        -------
        numpy.ndarray
            ``out``, or the new array, holding the device memory's contents.

        Raises
        ------
        InvalidArgumentError
            ``out`` of another dtype or size, or not C-contiguous.
        CugraphlabError
            The array is closed.
        CudaError
            cuMemcpyDtoHAsync or the wait after it failed (an error of an earlier asynchronous launch surfaces
            here).

        See Also
        --------
        cuMemcpyDtoHAsync : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1g56f30236c7c5247f8e061b59d3268362
        """
        out = np.empty(self.n, self.dtype) if out is None else self._host_view(out)
        h = self._begin(stream)
        cu("cuMemcpyDtoHAsync", out.ctypes.data, self.handle, self.nbytes, h)
        cu("cuStreamSynchronize", h)
        return out

    def fill_bits(self, bits: int, stream=None) -> None:
        """Set every 4-byte element to the 32-bit pattern ``bits`` (cuMemsetD32Async); returns when done.

        Parameters
        ----------
        bits : int
            The pattern; only its low 32 bits are used.
        stream : Stream or object, optional
            Ordered on it (a Stream, or anything ``Stream.wrap`` takes); None (default): the whole context is
            waited for first, and the operation runs on the per-thread default stream.

        Raises
        ------
        InvalidArgumentError
            The dtype is not 4 bytes wide.
        CugraphlabError
            The array is closed.
        CudaError
            cuMemsetD32Async or the wait after it failed.

        See Also
        --------
        cuMemsetD32Async : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1g58229da5d30f1c0cdf667b320ec2c0f5
        """
        if self.dtype.itemsize != 4:
            raise InvalidArgumentError("fill_bits works on 4-byte dtypes only")
        h = self._begin(stream)
        cu("cuMemsetD32Async", self.handle, bits & 0xFFFFFFFF, self.n, h)
        cu("cuStreamSynchronize", h)

    def poison(self, stream=None) -> None:
        """Fill with a NaN pattern (POISON_BITS) so that any element a kernel fails to write shows up in a comparison.

        Parameters
        ----------
        stream : Stream or object, optional
            Ordered on it (a Stream, or anything ``Stream.wrap`` takes); None (default): the whole context is
            waited for first, and the operation runs on the per-thread default stream.

        Raises
        ------
        InvalidArgumentError
            The dtype is not 4 bytes wide.
        CudaError
            cuMemsetD32Async or the wait after it failed.

        See Also
        --------
        cuMemsetD32Async : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html#group__CUDA__MEM_1g58229da5d30f1c0cdf667b320ec2c0f5
        """
        self.fill_bits(POISON_BITS, stream)

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        state = "closed" if self.closed else hex(self.ptr)
        borrowed = "" if self.owned else f" (wrapped, {self.protocol})"
        return f"<DeviceArray {self.dtype}[{self.n}] at {state}{borrowed}>"
