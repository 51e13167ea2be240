"""Kernel arguments: every kind a signature may name, and how ``PackedArgs`` lays them out, once.

A signature is a tuple with one entry per kernel parameter, in order, e.g. ``("ptr", "ptr", "f32", "u64")`` for
``saxpy(float* y, const float* x, float a, unsigned long long n)``:

    kind    C parameter                 size  align  value accepted
    ptr     T* (any pointer)               8      8  a cugraphlab DeviceArray; anything with
                                                     __cuda_array_interface__ (v2/v3) or __dlpack__ (CuPy array,
                                                     torch tensor, Numba device array, JAX array); an int address
    u64     unsigned long long             8      8  int (0 .. 2**64-1)
    i64     long long                      8      8  int
    u32     unsigned int                   4      4  int
    i32     int                            4      4  int
    u16     unsigned short                 2      2  int
    i16     short                          2      2  int
    u8      unsigned char                  1      1  int
    i8      signed char                    1      1  int
    f64     double                         8      8  float (any real number)
    f32     float                          4      4  float, rounded to nearest like NumPy's float32()
    f16     __half                         2      2  float (rounded to nearest even, like numpy.float16()),
                                                     numpy.float16
    bf16    __nv_bfloat16                  2      2  float (to float32, then rounded to nearest even, like
                                                     __float2bfloat16_rn); a bfloat16 scalar of ml_dtypes
    struct  struct S (by value)         sizeof alignof a NumPy structured scalar (its dtype built with
                                                     ``align=True``, so fields sit where C puts them), or
                                                     ``Struct(raw_bytes, align)``
    a NumPy structured dtype            sizeof alignof a scalar of that dtype, a tuple of its fields, or a dict

Every scalar kind also takes ``RawBits(bits)``: the parameter's exact bit pattern (a bfloat16 from its raw bits,
a float with a NaN payload).

Layout: each argument gets its own slot in one buffer, at an offset that is a multiple of 8 (or of its alignment
when larger), at least 8 bytes long (a struct rounds up to a multiple of 8); a scalar sits at the start of its slot,
little-endian. So a signature of scalars and pointers is a row of 8-byte slots. cuLaunchKernel takes
``kernelParams``, an array of pointers, one per parameter, to these slots; the driver reads from each as many
bytes as the kernel's parameter has (it knows the parameter sizes from the kernel image), so padding is never read.
``address`` is that array's address (``void**``), handed to the binding as a plain int; nothing is converted per
launch.

Pointers are checked when packed: a NumPy (host) array, a CPU tensor, or memory of another device than the
kernel's is one InvalidArgumentError naming the argument (``saxpy args[1] (x): ...``); a non-contiguous view is
refused (its elements are not where a pointer walk finds them: pass ``.copy()``, or the int address on purpose).
The object passed is kept referenced as long as the PackedArgs, so its memory outlives the packing.

Driver API: cuLaunchKernel's ``kernelParams`` (CUDA Driver API, "Execution Control").
"""
from __future__ import annotations

import ctypes
import numbers
import operator
import struct
from dataclasses import dataclass

import numpy as np

from .errors import InvalidArgumentError
from .interop import foreign_array, has_array_protocol, pointer_device, type_name
from .memory import DeviceArray

__all__ = ["PackedArgs", "Struct", "RawBits", "ArgKind", "ARG_KINDS", "ARG_FORMATS", "SLOT_BYTES", "f16_bits",
           "bf16_bits", "struct_layout"]

SLOT_BYTES = 8


@dataclass(frozen=True)
class ArgKind:
    """One scalar argument kind: its name, C type, size and alignment in bytes, and ``struct`` format."""

    name: str
    c_type: str
    size: int
    fmt: str  # struct format of the value (little-endian)
    bits_fmt: str  # struct format of its raw bits (unsigned of the same size)

    @property
    def align(self) -> int:
        return self.size


def _kinds(*rows) -> dict[str, ArgKind]:
    return {r[0]: ArgKind(*r) for r in rows}


#: The scalar kinds (the table in the module docstring); "struct" and NumPy dtypes are the aggregate kinds.
ARG_KINDS = _kinds(
    ("ptr", "T*", 8, "<Q", "<Q"),
    ("u64", "unsigned long long", 8, "<Q", "<Q"),
    ("i64", "long long", 8, "<q", "<Q"),
    ("u32", "unsigned int", 4, "<I", "<I"),
    ("i32", "int", 4, "<i", "<I"),
    ("u16", "unsigned short", 2, "<H", "<H"),
    ("i16", "short", 2, "<h", "<H"),
    ("u8", "unsigned char", 1, "<B", "<B"),
    ("i8", "signed char", 1, "<b", "<B"),
    ("f64", "double", 8, "<d", "<Q"),
    ("f32", "float", 4, "<f", "<I"),
    ("f16", "__half", 2, "<e", "<H"),
    ("bf16", "__nv_bfloat16", 2, "<H", "<H"),  # packed from its bits (bf16_bits)
)
#: kind -> struct format of its value (the scalar kinds; kept from the first releases).
ARG_FORMATS = {name: k.fmt for name, k in ARG_KINDS.items()}
_INT_RANGES = {"<Q": (0, 2**64 - 1), "<q": (-2**63, 2**63 - 1), "<I": (0, 2**32 - 1), "<i": (-2**31, 2**31 - 1),
               "<H": (0, 2**16 - 1), "<h": (-2**15, 2**15 - 1), "<B": (0, 255), "<b": (-128, 127)}


@dataclass(frozen=True)
class RawBits:
    """A scalar argument given by its exact bit pattern (an unsigned int of the kind's size): ``RawBits(0x3F80)``
    for the bfloat16 1.0, ``RawBits(0x7FC0DEAD)`` for a float NaN with a payload."""

    bits: int


@dataclass(frozen=True)
class Struct:
    """A struct argument as raw bytes and its C alignment (``alignof``), for layouts NumPy cannot say (a field of
    ``float4`` or ``double2``: 16) or bytes made elsewhere. ``Struct(ctypes_struct_instance)`` works too (the
    bytes and ``ctypes.alignment`` of it)."""

    data: bytes
    align: int = 8

    def __init__(self, data, align: int | None = None):
        if isinstance(data, ctypes.Structure) or isinstance(data, ctypes.Union):
            align = ctypes.alignment(data) if align is None else align
            data = bytes(memoryview(data).cast("B"))
        object.__setattr__(self, "data", bytes(data))
        a = 8 if align is None else align
        if isinstance(a, bool) or not isinstance(a, int) or a < 1 or a & (a - 1) or a > 4096:
            raise InvalidArgumentError(f"a struct's alignment must be a power of two from 1 to 4096, got {align!r}")
        if not self.data:
            raise InvalidArgumentError("a struct argument needs at least one byte")
        if len(self.data) % a:
            raise InvalidArgumentError(f"a struct of {len(self.data)} bytes cannot have alignment {a}: C pads "
                                       f"sizeof to a multiple of alignof ({-(-len(self.data) // a) * a})")
        object.__setattr__(self, "align", a)


def f16_bits(value) -> int:
    """The IEEE binary16 bits of ``value`` (a float, rounded to nearest even as numpy.float16() does; or a
    numpy.float16)."""
    if isinstance(value, np.floating) and value.dtype == np.float16:
        return int(np.asarray(value).view(np.uint16))
    try:
        return struct.unpack("<H", struct.pack("<e", float(value)))[0]
    except OverflowError:
        raise InvalidArgumentError(f"{value!r} is out of the float16 range (largest finite: 65504)") from None


def bf16_bits(value) -> int:
    """The bfloat16 bits of ``value``: a float goes to float32 first (like NumPy's float32()), then is rounded to
    nearest even (as ``__float2bfloat16_rn`` does); a bfloat16 scalar (ml_dtypes) gives its own bits."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(dtype, "name", "") == "bfloat16" and dtype.itemsize == 2:
        return int(np.asarray(value).view(np.uint16))
    try:
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    except OverflowError:
        raise InvalidArgumentError(f"{value!r} is out of the float32 range a bfloat16 is rounded from") from None
    if (bits & 0x7FFFFFFF) > 0x7F800000:  # NaN: keep sign and the top of the payload, make it quiet
        return ((bits >> 16) | 0x0040) & 0xFFFF
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


# --- structs ---------------------------------------------------------------------------------------------------------
def _c_align(dt: np.dtype) -> int:
    """alignof of the C type a NumPy dtype stands for."""
    if dt.fields:
        return max((_c_align(f[0]) for f in dt.fields.values()), default=1)
    if dt.subdtype is not None:
        return _c_align(dt.subdtype[0])
    return dt.alignment


def _check_c_layout(dt: np.dtype, where: str) -> None:
    if dt.fields is None:
        if dt.subdtype is not None:
            return _check_c_layout(dt.subdtype[0], where)
        if dt.byteorder == ">":
            raise InvalidArgumentError(f"{where}: field dtype {dt} is big-endian; the GPU reads little-endian")
        if dt.kind == "O":
            raise InvalidArgumentError(f"{where}: a Python object field cannot go to the GPU")
        return
    for name, (fdt, offset, *_) in dt.fields.items():
        a = _c_align(fdt)
        if offset % a:
            raise InvalidArgumentError(
                f"{where}: field {name!r} ({fdt}) at offset {offset} is not where C puts it (a multiple of {a}): "
                "build the dtype with np.dtype([...], align=True)")
        _check_c_layout(fdt, f"{where}.{name}")
    if dt.itemsize % _c_align(dt):
        raise InvalidArgumentError(f"{where}: its size {dt.itemsize} is not a multiple of its alignment "
                                   f"{_c_align(dt)} (C pads it): build the dtype with align=True")


def struct_layout(dtype) -> tuple[int, int]:
    """(sizeof, alignof) of the C struct a NumPy structured dtype describes; InvalidArgumentError when its fields
    do not sit where C puts them (a dtype built without ``align=True`` that needs padding)."""
    dt = np.dtype(dtype)
    if dt.fields is None:
        raise InvalidArgumentError(f"not a structured dtype: {dt}")
    _check_c_layout(dt, f"struct {dt}")
    return dt.itemsize, _c_align(dt)


def _copy_fields(dst: np.ndarray, src) -> None:
    """Copy ``src``'s fields into the zeroed record ``dst`` one by one, so padding bytes stay zero."""
    fields = dst.dtype.fields
    for name in dst.dtype.names or ():
        if fields is not None and fields[name][0].names:
            _copy_fields(dst[name], src[name])
        else:
            dst[name] = src[name]


def _struct_scalar(value, dt: np.dtype | None):
    """A NumPy structured scalar (np.void) of ``dt`` (or of the value's own dtype), padding zeroed, from a
    structured scalar, a 1-element structured array, a tuple of fields or a dict by field name."""
    if isinstance(value, np.ndarray) and value.dtype.fields is not None:
        if value.size != 1:
            raise InvalidArgumentError(f"a struct argument is one record, got an array of {value.size}")
        value = value.reshape(())[()]
    if isinstance(value, np.void) and value.dtype.fields is not None:
        if dt is not None and value.dtype != dt:
            raise InvalidArgumentError(f"struct of dtype {value.dtype}, but the signature says {dt}")
        rec = np.zeros((), value.dtype)
        _copy_fields(rec, value)
        return rec[()]
    if dt is None:
        raise InvalidArgumentError("a 'struct' argument is a NumPy structured scalar or Struct(bytes, align), got "
                                   f"{type_name(value)}")
    rec = np.zeros((), dt)
    names = dt.names or ()
    try:
        if isinstance(value, dict):
            unknown = set(value) - set(names)
            if unknown:
                raise KeyError(f"no field {sorted(unknown)[0]!r} in {dt}")
            for k, v in value.items():
                rec[k] = v
        else:
            fields = tuple(value)
            if len(fields) != len(names):
                raise ValueError(f"{len(fields)} values for {len(names)} fields")
            for name, v in zip(names, fields):
                rec[name] = v
    except (TypeError, ValueError, KeyError) as e:
        raise InvalidArgumentError(f"cannot make a {dt} struct of {value!r}: {e}") from None
    return rec[()]


# --- one parameter ---------------------------------------------------------------------------------------------------
class _Param:
    """How one parameter is packed: its offset, size and alignment, and the function turning a value into bytes."""

    __slots__ = ("index", "kind", "label", "size", "align", "offset", "slot", "dtype")
    offset: int  # set by the layout (PackedArgs), once every parameter's size and alignment is known

    def __init__(self, index: int, entry, value, label: str):
        self.index, self.label, self.dtype = index, label, None
        if isinstance(entry, str) and entry in ARG_KINDS:
            k = ARG_KINDS[entry]
            self.kind, self.size, self.align = entry, k.size, k.align
        elif isinstance(entry, str) and entry == "struct":
            self.kind = "struct"
            if isinstance(value, Struct):
                self.size, self.align = len(value.data), value.align
            else:
                rec = _struct_scalar(value, None)
                self.dtype = rec.dtype
                self.size, self.align = self._layout(rec.dtype)
        elif isinstance(entry, np.dtype) or (not isinstance(entry, str) and _is_struct_dtype(entry)):
            self.kind, self.dtype = "struct", np.dtype(entry)
            self.size, self.align = self._layout(self.dtype)
        else:
            known = ", ".join([*ARG_KINDS, "struct"])
            raise InvalidArgumentError(f"{label}: unknown argument kind {entry!r}; known: {known}, or a NumPy "
                                       "structured dtype")
        self.slot = -(-self.size // SLOT_BYTES) * SLOT_BYTES

    def _layout(self, dt):
        try:
            return struct_layout(dt)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"{self.label}: {e}") from None

    def encode(self, value, device, what: str) -> tuple[bytes, object]:
        """(the bytes of ``value`` for this parameter, the object to keep alive)."""
        kind = self.kind
        if kind == "ptr":
            address, keep = _pointer(value, device, self.label)
            return struct.pack("<Q", address), keep
        if kind == "struct":
            return self._struct_bytes(value), value
        k = ARG_KINDS[kind]
        if isinstance(value, RawBits):
            lo, hi = _INT_RANGES[k.bits_fmt]
            bits = value.bits
            if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) or not lo <= int(bits) <= hi:
                raise InvalidArgumentError(f"{self.label}: RawBits for {kind} must be an int 0..{hi:#x}, got "
                                           f"{bits!r}")
            return struct.pack(k.bits_fmt, int(bits)), value
        if kind == "f16":
            return struct.pack("<H", self._wrap(f16_bits, value)), value
        if kind == "bf16":
            return struct.pack("<H", self._wrap(bf16_bits, value)), value
        if kind in ("f32", "f64"):
            if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Real):
                raise InvalidArgumentError(f"{self.label}: {kind} needs a real number, got {value!r}")
            try:
                return struct.pack(k.fmt, float(value)), value
            except OverflowError:
                raise InvalidArgumentError(f"{self.label}: {value!r} is out of the float32 range") from None
        try:
            n = operator.index(value)
        except TypeError:
            raise InvalidArgumentError(f"{self.label}: {kind} needs an integer, got {value!r}") from None
        lo, hi = _INT_RANGES[k.fmt]
        if not lo <= n <= hi:
            raise InvalidArgumentError(f"{self.label}: {n} is out of the {kind} range {lo}..{hi}")
        return struct.pack(k.fmt, n), value

    def _wrap(self, fn, value) -> int:
        if isinstance(value, (str, bytes)) or not (isinstance(value, numbers.Real) or hasattr(value, "dtype")):
            raise InvalidArgumentError(f"{self.label}: {self.kind} needs a real number, got {value!r}")
        try:
            return fn(value)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"{self.label}: {e}") from None
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"{self.label}: {self.kind} needs a real number, got {value!r} ({e})") from None

    def _struct_bytes(self, value) -> bytes:
        if isinstance(value, Struct):
            if self.dtype is not None:
                raise InvalidArgumentError(f"{self.label}: the signature gives a dtype ({self.dtype}): pass a "
                                           "scalar of it, not Struct bytes")
            data, align = value.data, value.align
        else:
            try:
                rec = _struct_scalar(value, self.dtype)
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"{self.label}: {e}") from None
            data, align = rec.tobytes(), self._layout(rec.dtype)[1]
        if len(data) != self.size or align != self.align:
            raise InvalidArgumentError(f"{self.label}: a struct of {len(data)} bytes (align {align}); this slot "
                                       f"was packed for {self.size} (align {self.align})")
        return data


def _is_struct_dtype(entry) -> bool:
    try:
        return np.dtype(entry).fields is not None
    except TypeError:
        return False


def _device_label(device) -> str:
    return f"device {device.ordinal}"


def _pointer(value, device, label: str) -> tuple[int, object]:
    """(address, object to keep) for a ``ptr`` argument; InvalidArgumentError naming ``label`` otherwise."""
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{label}: a pointer argument cannot be a bool")
    if isinstance(value, numbers.Integral):
        n = int(value)
        if not 0 <= n < 2**64:
            raise InvalidArgumentError(f"{label}: an address is 0 .. 2**64-1, got {n}")
        return n, value
    if isinstance(value, DeviceArray):
        if value.closed:
            raise InvalidArgumentError(f"{label}: the DeviceArray is closed")
        owner = value.device
        if device is not None and owner is not None:
            if owner.ordinal != device.ordinal:
                raise InvalidArgumentError(f"{label}: a DeviceArray on device {owner.ordinal}, but the kernel is "
                                           f"loaded on {_device_label(device)}")
            if int(owner.context) != int(device.context):
                raise InvalidArgumentError(f"{label}: a DeviceArray of another context on device {owner.ordinal} "
                                           "(memory of one context is not another's)")
        elif device is not None and value.ptr:
            _check_foreign_device(value.ptr, None, device, label, "a wrapped DeviceArray")
        return value.ptr, value
    if isinstance(value, np.ndarray) or has_array_protocol(value):
        fa = foreign_array(value, label)
        if not fa.contiguous:
            raise InvalidArgumentError(f"{label}: a non-contiguous {type_name(value)} (shape {fa.shape}): a kernel "
                                       "walking a pointer would read the wrong elements; pass a contiguous copy")
        if device is not None and fa.ptr:
            _check_foreign_device(fa.ptr, fa.device, device, label, type_name(value))
        return fa.ptr, fa.owner
    ptr = getattr(value, "ptr", None)  # an object holding an address (cupy.cuda.MemoryPointer, a test's stand-in)
    if isinstance(ptr, numbers.Integral) and not isinstance(ptr, bool):
        return int(ptr), value
    raise InvalidArgumentError(
        f"{label}: a pointer argument needs device memory: a cugraphlab DeviceArray, an array with "
        f"__cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, Numba, JAX), or an int address; got "
        f"{type_name(value)}")


def _check_foreign_device(ptr: int, said: int | None, device, label: str, what: str) -> None:
    try:
        ordinal = said if said is not None else pointer_device(ptr)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"{label}: {what}: {e}") from None
    if ordinal is not None and ordinal != device.ordinal:
        raise InvalidArgumentError(f"{label}: {what} on CUDA device {ordinal}, but the kernel is loaded on "
                                   f"{_device_label(device)}: move it there, or load the kernel on its device")


# --- the packed block ------------------------------------------------------------------------------------------------
class PackedArgs:
    """Kernel arguments of a signature (see the module docstring for the kinds), packed once.

    ``address`` is the ``void**`` to pass as cuLaunchKernel's kernelParams (0 when there are no arguments);
    ``offsets``/``sizes`` where each argument sits in the buffer and how many bytes it has; ``raw()`` the buffer
    as bytes. ``set(i, value)`` rewrites one argument in place; the driver copies arguments at launch, so this is
    safe between launches (a graph's kernel node copies them when it is made: update it to change them).

    Parameters
    ----------
    signature : sequence of str or numpy.dtype
        The kinds, one per kernel parameter (ARG_KINDS, or a NumPy structured dtype).
    values : sequence
        The arguments, one per kind.
    device : Device, optional
        The Device the kernel is loaded on, against which pointer arguments are checked.
    names : sequence of str, optional
        The parameters' names, for error messages.
    kernel : str, optional
        The kernel's name, for error messages.

    Raises
    ------
    InvalidArgumentError
        A count that does not match, an unknown kind, or a value its kind refuses (naming the argument).
    """

    def __init__(self, signature, values, *, device=None, names=None, kernel: str | None = None):
        signature, values = tuple(signature), tuple(values)
        what = kernel or "kernel"
        if len(signature) != len(values):
            raise InvalidArgumentError(f"{what} takes {len(signature)} arguments, got {len(values)}")
        names = tuple(names) if names is not None else ()
        if names and len(names) != len(signature):
            raise InvalidArgumentError(f"{what}: {len(names)} names for {len(signature)} arguments")
        self.signature, self.device, self.kernel_name = signature, device, kernel
        self._params = []
        offset = 0
        for i, (entry, value) in enumerate(zip(signature, values)):
            label = f"{what} args[{i}]" + (f" ({names[i]})" if names else "")
            p = _Param(i, entry, value, label)
            offset = -(-offset // max(SLOT_BYTES, p.align)) * max(SLOT_BYTES, p.align)
            p.offset = offset
            offset += p.slot
            self._params.append(p)
        self.size = offset
        self.base_align = max([16, *(p.align for p in self._params)])
        # One buffer, its start aligned to the largest alignment asked for (malloc gives 16).
        self.storage = ctypes.create_string_buffer(max(self.size, SLOT_BYTES) + self.base_align)
        start = ctypes.addressof(self.storage)
        self.base = start + (-start % self.base_align)
        n = len(signature)
        self.pointers = (ctypes.c_void_p * max(n, 1))(*[self.base + p.offset for p in self._params])
        self.address = ctypes.addressof(self.pointers) if n else 0
        self._keep: list[object] = [None] * n
        for i, v in enumerate(values):
            self.set(i, v)

    @property
    def offsets(self) -> tuple[int, ...]:
        """Byte offset of each argument in the buffer."""
        return tuple(p.offset for p in self._params)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Bytes of each argument (what the kernel's parameter has)."""
        return tuple(p.size for p in self._params)

    @property
    def aligns(self) -> tuple[int, ...]:
        """Alignment of each argument."""
        return tuple(p.align for p in self._params)

    def set(self, i: int, value) -> None:
        """Rewrite argument ``i`` in place (same kind; a struct of the same size and alignment).

        Parameters
        ----------
        i : int
            The argument's index.
        value : object
            Its new value, as its kind takes it.

        Raises
        ------
        IndexError
            No argument ``i``.
        InvalidArgumentError
            A value its kind refuses.
        """
        p = self._params[i]
        data, keep = p.encode(value, self.device, p.label)
        ctypes.memmove(self.base + p.offset, data, len(data))
        self._keep[i] = keep

    def raw(self) -> bytes:
        """The packed buffer as bytes (what the kernel will receive, padding included).

        Returns
        -------
        bytes
            ``size`` bytes.
        """
        return ctypes.string_at(self.base, self.size)

    def layout(self) -> list[tuple[int, str, int, int, int]]:
        """(index, kind, offset, size, align) per argument: where each one sits.

        Returns
        -------
        list of tuple
            One (index, kind, offset, size, align) per argument, in order.
        """
        return [(p.index, p.kind, p.offset, p.size, p.align) for p in self._params]

    def __len__(self) -> int:
        return len(self.signature)

    def __repr__(self) -> str:
        parts = " ".join(f"{p.kind}@{p.offset}" for p in self._params)
        return f"<PackedArgs {parts or '(none)'}: {self.size} bytes>"
