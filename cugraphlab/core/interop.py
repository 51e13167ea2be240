"""Other libraries' arrays and streams, both ways, through the standard protocols (no dependency on any of them).

Arrays coming in (kernel arguments, ``DeviceArray.wrap``), in this order of preference:

  ``__cuda_array_interface__`` (v2, v3)  CuPy, PyTorch (CUDA tensors), Numba: a dict ``{"shape", "typestr",
                                          "data": (ptr, readonly), "strides", "version", "stream" (v3)}``.
                                          A v3 ``stream`` is the producer's stream: it is synchronized once here
                                          (cuStreamSynchronize), so what the producer queued is done before use.
  ``__dlpack__`` / ``__dlpack_device__``  JAX, PyTorch, CuPy, NumPy (CPU: refused): ``__dlpack_device__()`` first
                                          (a CPU array is refused before anything is exported), then
                                          ``__dlpack__(stream=2, max_version=(1, 0))``: the producer makes the
                                          per-thread default stream wait for its work, which is then synchronized.
                                          The capsule ("dltensor" or "dltensor_versioned") is read with ctypes and
                                          kept, unconsumed: its own destructor frees the tensor when cugraphlab
                                          lets go of it, so the memory lives as long as the capsule does.

Either way the result is a ``ForeignArray`` (address, shape, dtype, device) that keeps its owner alive. Ordering
after that first synchronization is the caller's: enqueue on the library's own stream (``Stream.wrap``) or
synchronize between the two.

Arrays going out: ``DeviceArray.__dlpack__`` / ``__dlpack_device__`` (``to_dlpack`` here) hand a cugraphlab array to
``torch.from_dlpack``, ``cupy.from_dlpack``, ``jax.dlpack.from_dlpack``; ``__cuda_array_interface__`` (v3, on the
DeviceArray) to CuPy and Numba. The exported DLManagedTensor keeps the DeviceArray alive until the consumer calls
its deleter.

Streams (``Stream.wrap``, ``stream_handle``): ``__cuda_stream__()`` -> ``(0, handle)`` (the protocol of cuda.core,
also on CuPy 13+ and PyTorch 2.x streams and on cuda.bindings' ``CUstream``), a torch stream's ``.cuda_stream``,
a CuPy stream's ``.ptr``, or an int handle. A cugraphlab ``Stream`` has ``__cuda_stream__`` itself.

Driver API: cuPointerGetAttribute (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL), cuStreamSynchronize, cuCtxSynchronize.
"""
from __future__ import annotations

import ctypes
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._calls import cu, driver_fn, driver_module
from .errors import InvalidArgumentError

__all__ = ["ForeignArray", "foreign_array", "has_array_protocol", "pointer_device", "stream_handle", "to_dlpack",
           "DLPACK_DEVICE_TYPES", "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST", "KDL_CUDA_MANAGED", "type_name"]

# DLDeviceType values (dlpack.h)
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
DLPACK_DEVICE_TYPES = {1: "CPU", 2: "CUDA", 3: "CUDA host (pinned)", 4: "OpenCL", 7: "Vulkan", 8: "Metal",
                       9: "VPI", 10: "ROCm", 11: "ROCm host", 12: "ext_dev", 13: "CUDA managed", 14: "oneAPI",
                       15: "WebGPU", 16: "Hexagon", 17: "MAIA"}
_USABLE_DLPACK = (KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED)
#: __dlpack__(stream=...) value: the per-thread default stream (DLPack's 2), synchronized after the export.
_PER_THREAD = 2


def type_name(obj) -> str:
    """``numpy.ndarray``, ``torch.Tensor``, ``cupy.ndarray``: what an error message calls an object."""
    t = type(obj)
    module = t.__module__.split(".")[0]
    return t.__name__ if module == "builtins" else f"{module}.{t.__name__}"


@dataclass(frozen=True)
class ForeignArray:
    """Device memory of another library, read through a protocol.

    ``ptr`` the address of the first element; ``shape``; ``dtype`` (a NumPy dtype, or None for one NumPy has not,
    e.g. bfloat16 under DLPack); ``itemsize``; ``contiguous`` (C order); ``device`` the CUDA ordinal where the
    protocol says it (DLPack), else None; ``memory`` "device", "managed", "host (pinned)" or "unknown";
    ``protocol`` which protocol answered; ``owner`` what keeps the memory alive (the object, and the DLPack capsule);
    ``readonly``.
    """

    ptr: int
    shape: tuple
    dtype: Any
    itemsize: int
    contiguous: bool
    device: int | None
    memory: str
    protocol: str
    owner: tuple
    readonly: bool = False

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= int(d)
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize


def has_array_protocol(obj) -> bool:
    """Whether ``obj`` offers ``__cuda_array_interface__`` or ``__dlpack__`` (without evaluating either)."""
    t = type(obj)
    if hasattr(t, "__cuda_array_interface__") or hasattr(t, "__dlpack__"):
        return True
    try:
        return hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")
    except Exception:  # an interface that raises on reading: foreign_array says why
        return True


def _c_contiguous(shape, strides, itemsize: int) -> bool:
    """Whether byte ``strides`` describe a C-ordered compact array of ``shape`` (dimensions of size 1 ignored)."""
    if strides is None:
        return True
    expected = itemsize
    for dim, stride in zip(reversed(tuple(shape)), reversed(tuple(strides))):
        if dim == 0:
            return True
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


def _synchronize(stream: int) -> None:
    cu("cuStreamSynchronize", driver_module().CUstream(int(stream)))


# --- __cuda_array_interface__ ------------------------------------------------------------------------------------
def _from_cai(obj, cai: dict, what: str) -> ForeignArray:
    try:
        shape = tuple(int(d) for d in cai["shape"])
        ptr, readonly = cai["data"]
        typestr = cai["typestr"]
    except (KeyError, TypeError, ValueError) as e:
        raise InvalidArgumentError(f"{what}: its __cuda_array_interface__ is malformed ({e!r})") from None
    version = int(cai.get("version", 0))
    if cai.get("mask") is not None:
        raise InvalidArgumentError(f"{what}: a masked array (__cuda_array_interface__ mask) cannot be a kernel "
                                   "argument")
    try:
        dtype = np.dtype(typestr)
        itemsize = dtype.itemsize
    except TypeError:  # a type NumPy lacks (e.g. "<V2" is fine, a bfloat16 spelled otherwise is not)
        dtype, digits = None, str(typestr)[2:]
        itemsize = int(digits) if digits.isdigit() else 0
    strides = cai.get("strides")
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if isinstance(stream, bool) or not isinstance(stream, numbers.Integral) or int(stream) == 0:
            raise InvalidArgumentError(f"{what}: __cuda_array_interface__ stream must be an int other than 0, got "
                                       f"{stream!r}")
        _synchronize(int(stream))  # what the producer queued on it is done before this memory is used
    return ForeignArray(int(ptr or 0), shape, dtype, itemsize, _c_contiguous(shape, strides, itemsize), None,
                        "unknown", f"__cuda_array_interface__ v{version}", (obj,), bool(readonly))


# --- DLPack: the C structs of dlpack.h ------------------------------------------------------------------------------
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_DLPACK_READ_ONLY = 1 << 0
_DL_CODES = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}  # kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool
_DL_BFLOAT = 4
_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"


class _CapsuleApi:
    """The few capsule functions used, with prototypes of their own (ctypes.pythonapi's objects stay as they are).
    The ``_raw`` ones take the capsule as an address: they are what a capsule destructor may call."""

    def __init__(self):
        api, py, vp = ctypes.pythonapi, ctypes.py_object, ctypes.c_void_p
        proto = ctypes.PYFUNCTYPE
        self.get_name = proto(ctypes.c_char_p, py)(("PyCapsule_GetName", api))
        self.get_pointer = proto(vp, py, ctypes.c_char_p)(("PyCapsule_GetPointer", api))
        self.new = proto(py, vp, ctypes.c_char_p, vp)(("PyCapsule_New", api))
        self.is_valid_raw = proto(ctypes.c_int, vp, ctypes.c_char_p)(("PyCapsule_IsValid", api))
        self.get_pointer_raw = proto(vp, vp, ctypes.c_char_p)(("PyCapsule_GetPointer", api))


_capsule_api: _CapsuleApi | None = None


def _capsules() -> _CapsuleApi:
    global _capsule_api
    if _capsule_api is None:
        _capsule_api = _CapsuleApi()
    return _capsule_api


def _dl_dtype(dt: _DLDataType):
    """(NumPy dtype or None, itemsize) of a DLDataType."""
    itemsize = (int(dt.bits) * max(int(dt.lanes), 1) + 7) // 8
    kind = _DL_CODES.get(int(dt.code))
    if kind is None or int(dt.lanes) != 1:
        return None, itemsize
    if kind == "b":
        return np.dtype("?"), itemsize
    try:
        return np.dtype(f"<{kind}{int(dt.bits) // 8}"), itemsize
    except TypeError:
        return None, itemsize


def _call_dlpack(obj, what: str):
    try:
        return obj.__dlpack__(stream=_PER_THREAD, max_version=(1, 0))
    except TypeError:  # a producer from before DLPack 1.0 (no max_version)
        try:
            return obj.__dlpack__(stream=_PER_THREAD)
        except Exception as e:
            raise InvalidArgumentError(f"{what}: __dlpack__ refused ({type(e).__name__}: {e})") from None
    except Exception as e:
        raise InvalidArgumentError(f"{what}: __dlpack__ refused ({type(e).__name__}: {e})") from None


def _from_dlpack(obj, what: str) -> ForeignArray:
    device = None
    if hasattr(obj, "__dlpack_device__"):
        try:
            device = tuple(int(v) for v in obj.__dlpack_device__())
        except Exception as e:
            raise InvalidArgumentError(f"{what}: __dlpack_device__ failed ({type(e).__name__}: {e})") from None
        _refuse_dlpack_device(obj, device, what)
    capsule = _call_dlpack(obj, what)
    api = _capsules()
    try:
        name = api.get_name(capsule)
    except Exception:
        raise InvalidArgumentError(f"{what}: __dlpack__ returned {type_name(capsule)}, not a DLPack capsule") from None
    if name == _NAME_VERSIONED:
        managed = _DLManagedTensorVersioned.from_address(api.get_pointer(capsule, name))
        tensor, readonly, label = managed.dl_tensor, bool(managed.flags & _DLPACK_READ_ONLY), (
            f"__dlpack__ {managed.version.major}.{managed.version.minor}")
    elif name == _NAME:
        legacy = _DLManagedTensor.from_address(api.get_pointer(capsule, name))
        tensor, readonly, label = legacy.dl_tensor, False, "__dlpack__ (legacy)"
    else:
        raise InvalidArgumentError(f"{what}: __dlpack__ returned a capsule named {name!r} (already consumed?)")
    dev = (int(tensor.device.device_type), int(tensor.device.device_id))
    _refuse_dlpack_device(obj, dev, what)
    ndim = int(tensor.ndim)
    shape = tuple(int(tensor.shape[i]) for i in range(ndim))
    dtype, itemsize = _dl_dtype(tensor.dtype)
    strides = None if not tensor.strides else tuple(int(tensor.strides[i]) * itemsize for i in range(ndim))
    ptr = int(tensor.data or 0) + int(tensor.byte_offset)
    memory = {KDL_CUDA: "device", KDL_CUDA_MANAGED: "managed", KDL_CUDA_HOST: "host (pinned)"}[dev[0]]
    _synchronize(driver_module().CU_STREAM_PER_THREAD)  # the producer made it wait for its work
    # the capsule stays unconsumed and referenced: its destructor (the producer's) frees the tensor with it
    return ForeignArray(ptr, shape, dtype, itemsize, _c_contiguous(shape, strides, itemsize),
                        dev[1] if dev[0] != KDL_CUDA_HOST else None, memory, label, (obj, capsule), readonly)


def _refuse_dlpack_device(obj, device: tuple, what: str) -> None:
    if device[0] in _USABLE_DLPACK:
        return
    where = DLPACK_DEVICE_TYPES.get(device[0], f"device type {device[0]}")
    hint = " (host memory: copy it to the GPU first, e.g. device.to_device(array))" if device[0] == KDL_CPU else ""
    raise InvalidArgumentError(f"{what}: {type_name(obj)} lives on {where}, not on a CUDA device{hint}")


def foreign_array(obj, what: str = "argument") -> ForeignArray:
    """``obj``'s memory through ``__cuda_array_interface__`` (preferred) or DLPack; ``what`` names it in errors.

    Raises InvalidArgumentError (one line naming ``what``) for a NumPy or other CPU array, a non-CUDA DLPack
    device, a malformed interface, or an object offering neither protocol.
    """
    if isinstance(obj, np.ndarray):
        raise InvalidArgumentError(f"{what}: a numpy.ndarray is host memory: copy it to the GPU first "
                                   "(device.to_device(array))")
    cai_error = None
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        cai = None
    except Exception as e:  # e.g. a torch tensor that requires grad: try DLPack, keep the reason
        cai, cai_error = None, f"{type(e).__name__}: {e}"
    if cai is not None:
        return _from_cai(obj, cai, what)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, what)
    reason = f" (its __cuda_array_interface__ failed: {cai_error})" if cai_error else ""
    raise InvalidArgumentError(f"{what}: {type_name(obj)} offers neither __cuda_array_interface__ nor "
                               f"__dlpack__{reason}")


def pointer_device(ptr: int) -> int | None:
    """The CUDA ordinal of the device ``ptr`` was allocated on or registered with (cuPointerGetAttribute,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL); None where the driver cannot say (no UVA context, an older driver).
    InvalidArgumentError when the driver does not know the address at all (ordinary host memory)."""
    d = driver_module()
    try:
        r = driver_fn("cuPointerGetAttribute")(d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, int(ptr))
    except Exception:
        return None
    status = r[0]
    if status == 0:
        return int(r[1])
    if getattr(status, "name", "") == "CUDA_ERROR_INVALID_VALUE":
        raise InvalidArgumentError(f"address {int(ptr):#x} is not memory the CUDA driver knows (host memory?)")
    return None


# --- streams -------------------------------------------------------------------------------------------------------
def stream_handle(obj) -> int:
    """The CUstream address of a stream-like object: ``__cuda_stream__()`` -> (0, handle) (cuda.core, CuPy 13+,
    PyTorch 2.x, cuda.bindings CUstream, cugraphlab), a torch stream's ``.cuda_stream``, a CuPy stream's ``.ptr``,
    or an int. InvalidArgumentError naming what was given otherwise."""
    if isinstance(obj, bool):
        raise InvalidArgumentError("a stream handle cannot be a bool")
    if isinstance(obj, numbers.Integral):
        if int(obj) < 0:
            raise InvalidArgumentError(f"a stream handle is an address >= 0, got {int(obj)}")
        return int(obj)
    proto = getattr(obj, "__cuda_stream__", None)
    if proto is not None:
        info = proto() if callable(proto) else proto  # an attribute: the protocol's deprecated first form
        try:
            version, handle = info
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{type_name(obj)}.__cuda_stream__() must return (0, handle), got "
                                       f"{info!r}") from None
        if version != 0:
            raise InvalidArgumentError(f"{type_name(obj)}.__cuda_stream__(): protocol version {version!r} is not "
                                       "the version 0 this package speaks")
        return int(handle)
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        value = getattr(obj, attr, None)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
    if type(obj).__name__ == "CUstream":  # cuda.bindings before __cuda_stream__
        return int(obj)
    raise InvalidArgumentError(
        f"not a stream: {type_name(obj)}; a stream is a cugraphlab Stream, an object with __cuda_stream__ "
        "(cuda.core, CuPy, PyTorch), a torch.cuda.Stream (.cuda_stream), a cupy.cuda.Stream (.ptr) or an int "
        "CUstream handle")


# --- DLPack export ------------------------------------------------------------------------------------------------
#: Exported tensors not yet deleted by their consumer: address of the managed struct -> what it needs alive.
_exported: dict[int, tuple] = {}


def _delete_exported(address) -> None:
    try:
        _exported.pop(int(address or 0), None)
    except Exception:  # never raise into the consumer's C code (and at interpreter exit the dict may be gone)
        pass


def _capsule_destructor(capsule_address) -> None:
    """A capsule still named "dltensor(_versioned)" was never consumed: delete its tensor here."""
    try:
        api = _capsules()
        for name in (_NAME_VERSIONED, _NAME):
            if api.is_valid_raw(capsule_address, name):
                _delete_exported(api.get_pointer_raw(capsule_address, name))
                return
    except Exception:
        pass


_DELETER_FN = _DELETER(_delete_exported)
_DESTRUCTOR_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)
# The C side may call these after this module is torn down (a consumer freeing a tensor at interpreter exit):
# one extra reference each, never dropped, keeps the thunks (and the capsule names) from being freed.
for _immortal in (_DELETER_FN, _DESTRUCTOR_FN, _NAME, _NAME_VERSIONED):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_immortal))

_NUMPY_TO_DL = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


def to_dlpack(array, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of a cugraphlab DeviceArray (the body of ``DeviceArray.__dlpack__``; DLPack 1.x's keyword
    arguments). ``stream``: the consumer's stream; anything but -1 synchronizes the context first (a DeviceArray
    does not know which stream last wrote it), so the consumer sees finished data. ``max_version`` >= (1, 0) gets
    a "dltensor_versioned" capsule, else the legacy "dltensor". ``copy=True`` and a ``dl_device`` other than the
    array's own raise BufferError, as the protocol asks."""
    array.require_open()
    dtype = array.dtype
    code = _NUMPY_TO_DL.get(dtype.kind)
    if code is None or dtype.fields is not None or dtype.subdtype is not None:
        raise BufferError(f"DLPack has no data type for {dtype}")
    device = array.__dlpack_device__()
    if dl_device is not None and tuple(int(v) for v in dl_device) != device:
        raise BufferError(f"this array is on {device}; it cannot be exported to {tuple(dl_device)} without a copy")
    if copy:
        raise BufferError("cugraphlab exports its arrays without copying (copy=True is not supported)")
    if stream is not None and stream != -1:
        if isinstance(stream, bool) or not isinstance(stream, numbers.Integral) or stream == 0:
            raise BufferError(f"DLPack stream for CUDA must be an int other than 0, got {stream!r}")
        cu("cuCtxSynchronize")
    versioned = max_version is not None and tuple(max_version)[:1] >= (1,)
    shape = (ctypes.c_int64 * 1)(array.n)
    strides = (ctypes.c_int64 * 1)(1)
    managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    t = managed.dl_tensor
    t.data = array.ptr or None
    t.device.device_type, t.device.device_id = device
    t.ndim = 1
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, dtype.itemsize * 8, 1
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    if versioned:
        managed.version.major, managed.version.minor = 1, 0
        managed.flags = 0
    managed.deleter = ctypes.cast(_DELETER_FN, ctypes.c_void_p).value
    address = ctypes.addressof(managed)
    managed.manager_ctx = address
    _exported[address] = (managed, shape, strides, array)  # alive until the consumer's deleter call
    try:
        return _capsules().new(address, _NAME_VERSIONED if versioned else _NAME,
                               ctypes.cast(_DESTRUCTOR_FN, ctypes.c_void_p).value)
    except BaseException:
        _exported.pop(address, None)
        raise
