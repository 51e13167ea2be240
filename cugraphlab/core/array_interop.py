"""A DeviceArray with other libraries, both ways and without a copy (a mixin of core.memory's DeviceArray).

In: ``DeviceArray.wrap(obj)`` views another library's device memory (a CuPy array, a torch tensor, a Numba or JAX
array: anything with ``__cuda_array_interface__`` or ``__dlpack__``) without owning it. Out: a DeviceArray offers
``__cuda_array_interface__`` (v3: ``cupy.asarray(arr)``, Numba) and ``__dlpack__`` / ``__dlpack_device__``
(``torch.from_dlpack(arr)``, ``cupy.from_dlpack(arr)``). The protocols themselves are in core.interop.
"""
from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from ._calls import driver_module
from .current import current_device
from .errors import InvalidArgumentError
from .interop import KDL_CUDA, foreign_array, pointer_device, to_dlpack, type_name

__all__ = ["ArrayInterop"]

A = TypeVar("A", bound="ArrayInterop")


class ArrayInterop:
    """The interop of :class:`core.memory.DeviceArray`: ``wrap`` in, the array protocols out."""

    protocol: str  # a wrapped array's: the protocol that answered (DeviceArray.wrap)
    _keep: list  # a wrapped array's: what keeps the memory alive until close()
    # set by DeviceArray (and Resource), declared for the type checker
    owned: bool
    n: int
    dtype: Any
    nbytes: int
    ptr: int
    device: Any
    handle: Any
    require_open: Any
    _own: Any

    @classmethod
    def wrap(cls: type[A], obj, device=None) -> A:
        """A DeviceArray viewing another library's device memory, without a copy and without owning it.

        ``obj``: anything with ``__cuda_array_interface__`` (v2/v3: CuPy, PyTorch CUDA tensors, Numba) or
        ``__dlpack__`` (PyTorch, JAX, CuPy) that is C-contiguous and of a NumPy dtype; its elements become the
        array's ``n`` (all dimensions flattened). ``device``: the Device it is on (default: the open Device whose
        context is current; the memory's own device must match it). The wrapper keeps ``obj`` alive until it is
        closed or collected, and never frees the memory (``owned`` is False). A cugraphlab DeviceArray is
        returned as it is.

        Parameters
        ----------
        obj : object
            The array to view, with either protocol.
        device : Device, optional
            The Device the memory is on.

        Returns
        -------
        DeviceArray
            Not owned (``owned`` is False); ``obj`` itself when it is already a DeviceArray.

        Raises
        ------
        InvalidArgumentError
            Host memory, a non-contiguous array, memory of another device, or a dtype NumPy does not have
            (one line).
        """
        if isinstance(obj, cls):
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
