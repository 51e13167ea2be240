"""Every kernel argument kind packed to the exact bytes, offsets, sizes and alignments; structs; half and bfloat16;
foreign arrays accepted or refused with one line naming the argument (no GPU needed: fake driver)."""
from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

from cugraphlab.core.args import ARG_KINDS, SLOT_BYTES, PackedArgs, RawBits, Struct, bf16_bits, f16_bits, struct_layout
from cugraphlab.core.errors import InvalidArgumentError
from interop_fixtures import dev, drv  # noqa: F401  (the interop fake's fixtures)

SCALARS = [  # kind, value, expected bytes at the start of its slot
    ("u64", 2**64 - 1, struct.pack("<Q", 2**64 - 1)),
    ("i64", -2**63, struct.pack("<q", -2**63)),
    ("u32", 4_000_000_000, struct.pack("<I", 4_000_000_000)),
    ("i32", -7, struct.pack("<i", -7)),
    ("u16", 65535, b"\xff\xff"),
    ("i16", -2, b"\xfe\xff"),
    ("u8", 200, b"\xc8"),
    ("i8", -128, b"\x80"),
    ("f64", 0.1, struct.pack("<d", 0.1)),
    ("f32", 0.1, np.float32(0.1).tobytes()),
    ("f16", 0.1, np.float16(0.1).tobytes()),
    ("bf16", 1.0, b"\x80\x3f"),
    ("ptr", 0x7F0000001000, struct.pack("<Q", 0x7F0000001000)),
]


@pytest.mark.parametrize("kind,value,expected", SCALARS, ids=[s[0] for s in SCALARS])
def test_each_scalar_kind_sits_at_the_start_of_an_8_byte_slot(kind, value, expected):
    p = PackedArgs(("u8", kind, "u8"), (1, value, 2))
    assert p.offsets == (0, 8, 16)
    assert p.sizes == (1, ARG_KINDS[kind].size, 1)
    assert p.raw()[8:8 + len(expected)] == expected
    assert p.raw()[8 + len(expected):16] == b"\0" * (8 - len(expected))  # padding stays zero
    assert p.raw()[0] == 1 and p.raw()[16] == 2
    ptrs = (ctypes.c_void_p * 3).from_address(p.address)
    assert [ptrs[i] - p.base for i in range(3)] == [0, 8, 16]
    assert ctypes.string_at(ptrs[1], len(expected)) == expected


def test_the_first_releases_layout_is_kept_for_scalars_and_pointers():
    class Arr:
        ptr = 0x7F0000002000

    p = PackedArgs(("ptr", "ptr", "f32", "u64"), (0x7F0000001000, Arr(), 2.0, 1 << 20))
    assert len(p.raw()) == 4 * SLOT_BYTES and p.size == 32
    assert p.raw() == (struct.pack("<Q", 0x7F0000001000) + struct.pack("<Q", 0x7F0000002000)
                       + struct.pack("<f", 2.0) + b"\0" * 4 + struct.pack("<Q", 1 << 20))
    assert repr(p) == "<PackedArgs ptr@0 ptr@8 f32@16 u64@24: 32 bytes>"


def test_raw_bits_give_exact_patterns():
    p = PackedArgs(("f32", "bf16", "f16", "u16"), (RawBits(0x7FC0DEAD), RawBits(0x3F80), RawBits(0x3C00),
                                                  RawBits(0xBEEF)))
    raw = p.raw()
    assert raw[0:4] == struct.pack("<I", 0x7FC0DEAD)
    assert raw[8:10] == struct.pack("<H", 0x3F80) and raw[16:18] == struct.pack("<H", 0x3C00)
    assert raw[24:26] == struct.pack("<H", 0xBEEF)
    with pytest.raises(InvalidArgumentError, match=r"args\[0\].*RawBits for f16"):
        PackedArgs(("f16",), (RawBits(0x10000),))


def test_half_and_bfloat16_round_like_numpy_and_cuda():
    rng = np.random.default_rng()
    for x in rng.standard_normal(200) * 10.0 ** rng.integers(-6, 5, 200):
        assert f16_bits(float(x)) == int(np.float16(x).view(np.uint16)), x
        f = np.float32(x)
        bits = int(f.view(np.uint32))
        # round to nearest even, from float32: the reference spelled out the long way
        upper, lower = bits >> 16, bits & 0xFFFF
        expected = upper + (lower > 0x8000 or (lower == 0x8000 and upper & 1))
        assert bf16_bits(float(x)) == expected & 0xFFFF, x
    assert f16_bits(np.float16(-2.5)) == int(np.float16(-2.5).view(np.uint16))
    assert bf16_bits(float("inf")) == 0x7F80 and bf16_bits(-0.0) == 0x8000
    assert bf16_bits(float("nan")) & 0x7FC0 == 0x7FC0  # quiet NaN
    with pytest.raises(InvalidArgumentError, match="float16 range"):
        PackedArgs(("f16",), (1e6,))


def test_a_bfloat16_scalar_of_ml_dtypes_gives_its_own_bits():
    class Bf16Scalar:  # what ml_dtypes.bfloat16(1.5) looks like to the packer: a 2-byte dtype named bfloat16
        class dtype:
            name, itemsize = "bfloat16", 2

        def __array__(self, dtype=None, copy=None):
            return np.array(0x3FC0, np.uint16)

    assert bf16_bits(Bf16Scalar()) == 0x3FC0


def test_struct_from_a_numpy_structured_scalar_follows_c_layout():
    dt = np.dtype([("a", "f4"), ("n", "u8"), ("s", "i2")], align=True)
    assert struct_layout(dt) == (24, 8)
    rec = np.array((2.5, 7, -3), dt)[()]
    p = PackedArgs(("ptr", "struct", "u32"), (0x1000, rec, 9))
    assert p.layout() == [(0, "ptr", 0, 8, 8), (1, "struct", 8, 24, 8), (2, "u32", 32, 4, 4)]
    assert p.raw()[8:32] == (struct.pack("<f", 2.5) + b"\0" * 4 + struct.pack("<Q", 7) + struct.pack("<h", -3)
                             + b"\0" * 6)  # padding zeroed, whatever the record held there
    assert p.raw()[32:36] == struct.pack("<I", 9)


def test_struct_from_a_dtype_in_the_signature_takes_tuples_and_dicts():
    dt = np.dtype([("x", "u1"), ("y", "f8")], align=True)
    a = PackedArgs((dt,), ((3, 1.0),))
    b = PackedArgs((dt,), ({"y": 1.0, "x": 3},))
    assert a.raw() == b.raw() == b"\x03" + b"\0" * 7 + struct.pack("<d", 1.0)
    with pytest.raises(InvalidArgumentError, match="no field 'z'"):
        PackedArgs((dt,), ({"z": 1},))
    with pytest.raises(InvalidArgumentError, match="1 values for 2 fields"):
        PackedArgs((dt,), ((1,),))


def test_a_packed_dtype_that_c_would_pad_is_refused_with_the_fix():
    packed = np.dtype([("a", "f4"), ("n", "u8")])  # offsets 0, 4: C puts n at 8
    with pytest.raises(InvalidArgumentError, match=r"saxpy args\[0\] \(params\).*offset 4.*align=True"):
        PackedArgs(("struct",), (np.zeros((), packed)[()],), names=("params",), kernel="saxpy")
    fine = np.dtype([("a", "f4"), ("b", "f4")])  # no padding needed: C's layout already
    assert struct_layout(fine) == (8, 4)


def test_nested_structs_and_arrays_in_structs():
    inner = np.dtype([("c", "u1"), ("d", "f8")], align=True)
    outer = np.dtype([("k", "u1"), ("i", inner), ("v", "<i4", (3,))], align=True)
    assert struct_layout(outer) == (40, 8)
    p = PackedArgs((outer,), ((1, (2, 0.5), (7, 8, 9)),))
    raw = p.raw()
    assert raw[0] == 1 and raw[8] == 2 and raw[16:24] == struct.pack("<d", 0.5)
    assert raw[24:36] == struct.pack("<3i", 7, 8, 9) and raw[1:8] == b"\0" * 7


def test_struct_bytes_with_their_alignment():
    p = PackedArgs(("u8", "struct", "u8"), (1, Struct(bytes(range(20)), 4), 2))
    assert p.layout() == [(0, "u8", 0, 1, 1), (1, "struct", 8, 20, 4), (2, "u8", 32, 1, 1)]
    assert p.raw()[8:28] == bytes(range(20))
    wide = PackedArgs(("u8", "struct"), (1, Struct(b"\x01" * 32, 32)))
    assert wide.offsets == (0, 32) and wide.base % 32 == 0 and wide.size == 64
    with pytest.raises(InvalidArgumentError, match="power of two"):
        Struct(b"1234", 3)
    with pytest.raises(InvalidArgumentError, match="multiple of alignof"):
        Struct(b"123456", 4)


def test_struct_from_a_ctypes_structure():
    class P(ctypes.Structure):
        _fields_ = [("a", ctypes.c_float), ("n", ctypes.c_uint64)]

    s = Struct(P(1.5, 5))
    assert s.align == 8 and s.data == struct.pack("<f", 1.5) + b"\0" * 4 + struct.pack("<Q", 5)


def test_set_rewrites_in_place_and_checks_the_kind():
    dt = np.dtype([("a", "f4"), ("b", "f4")])
    p = PackedArgs(("ptr", "f32", dt), (16, 1.5, (1.0, 2.0)))
    address, base = p.address, p.base
    p.set(1, -4.25)
    p.set(0, 4096)
    p.set(2, (3.0, 4.0))
    assert p.address == address and p.base == base
    assert p.raw() == struct.pack("<Qf4xff", 4096, -4.25, 3.0, 4.0)
    with pytest.raises(InvalidArgumentError, match="struct of dtype"):
        p.set(2, np.zeros((), np.dtype([("a", "f8")]))[()])


@pytest.mark.parametrize("sig,vals,match", [
    (("ptr",), (), "takes 1 arguments, got 0"),
    (("float",), (1.0,), "unknown argument kind 'float'"),
    (("ptr",), ("not a pointer",), r"args\[0\]: a pointer argument needs device memory"),
    (("ptr",), (True,), "cannot be a bool"),
    (("u32",), (-1,), r"-1 is out of the u32 range 0\.\.4294967295"),
    (("i8",), (128,), "out of the i8 range"),
    (("u64",), (2**64,), "out of the u64 range"),
    (("i32",), (1.5,), "i32 needs an integer"),
    (("f32",), ("1.0",), "f32 needs a real number"),
    (("f32",), (1e39,), "float32 range"),
    (("struct",), (b"raw",), "Struct\\(bytes, align\\)"),
])
def test_bad_arguments_are_one_error_naming_the_argument(sig, vals, match):
    with pytest.raises(InvalidArgumentError, match=match):
        PackedArgs(sig, vals)


def test_names_of_parameters_appear_in_messages():
    with pytest.raises(InvalidArgumentError, match=r"saxpy args\[2\] \(a\): f32 needs a real number"):
        PackedArgs(("ptr", "ptr", "f32"), (1, 2, None), names=("y", "x", "a"), kernel="saxpy")
    with pytest.raises(InvalidArgumentError, match="2 names for 3 arguments"):
        PackedArgs(("ptr", "ptr", "f32"), (1, 2, 3.0), names=("y", "x"))


def test_no_arguments_pass_null():
    assert PackedArgs((), ()).address == 0 and PackedArgs((), ()).raw() == b""


# --- pointers from other libraries ------------------------------------------------------------------------------------
def test_a_cai_array_is_accepted_and_kept_alive(drv, dev):
    import gc
    import weakref

    from fake_interop import CaiArray

    drv.devices[0x5000_0000] = 0
    arr = CaiArray(0x5000_0100)
    ref = weakref.ref(arr)
    p = PackedArgs(("ptr", "u64"), (arr, 16), device=dev)
    del arr
    gc.collect()
    assert ref() is not None, "the packed arguments must keep the array alive"
    assert p.raw()[:8] == struct.pack("<Q", 0x5000_0100)


def test_a_cai_v3_stream_is_synchronized_once_at_packing(drv, dev):
    from fake_interop import CaiArray

    drv.devices[0x5000_0000] = 0
    PackedArgs(("ptr",), (CaiArray(0x5000_0000, stream=0xABC),), device=dev)
    assert drv.synchronized == [0xABC]
    PackedArgs(("ptr",), (CaiArray(0x5000_0000, version=2, stream=0xABC),), device=dev)  # v2 has no stream
    assert drv.synchronized == [0xABC]
    with pytest.raises(InvalidArgumentError, match="stream must be an int other than 0"):
        PackedArgs(("ptr",), (CaiArray(0x5000_0000, stream=0),), device=dev)


def test_a_numpy_array_is_refused_naming_the_argument(drv, dev):
    with pytest.raises(InvalidArgumentError, match=r"saxpy args\[1\] \(x\): a numpy.ndarray is host memory"):
        PackedArgs(("ptr", "ptr"), (0, np.zeros(4, np.float32)), device=dev, names=("y", "x"), kernel="saxpy")


def test_a_cpu_dlpack_array_is_refused_before_it_is_exported(drv, dev):
    from fake_interop import CpuDlpack

    cpu = CpuDlpack()
    with pytest.raises(InvalidArgumentError, match=r"args\[0\]: .*CpuDlpack lives on CPU, not on a CUDA device"):
        PackedArgs(("ptr",), (cpu,), device=dev)
    assert not cpu.exported


def test_memory_of_another_device_is_refused(drv, dev):
    from fake_interop import CaiArray

    drv.devices[0x6000_0000] = 1
    with pytest.raises(InvalidArgumentError, match=r"args\[0\] \(y\): .*CaiArray on CUDA device 1, but the kernel "
                                                   r"is loaded on device 0"):
        PackedArgs(("ptr",), (CaiArray(0x6000_0000),), device=dev, names=("y",))
    from cugraphlab.core.device import Device

    with Device(1) as other, other.array(4) as far:
        with pytest.raises(InvalidArgumentError, match="a DeviceArray on device 1, but the kernel is loaded on "
                                                       "device 0"):
            PackedArgs(("ptr",), (far,), device=dev)


def test_an_address_the_driver_does_not_know_is_refused(drv, dev):
    from fake_interop import CaiArray

    with pytest.raises(InvalidArgumentError, match="is not memory the CUDA driver knows"):
        PackedArgs(("ptr",), (CaiArray(0x1234_5678),), device=dev)
    PackedArgs(("ptr",), (0x1234_5678,), device=dev)  # a raw int is the caller's business


def test_a_non_contiguous_view_is_refused(drv, dev):
    from fake_interop import CaiArray

    drv.devices[0x5000_0000] = 0
    view = CaiArray(0x5000_0000, shape=(4, 4), strides=(32, 4))  # every other row
    with pytest.raises(InvalidArgumentError, match="non-contiguous"):
        PackedArgs(("ptr",), (view,), device=dev)
    PackedArgs(("ptr",), (CaiArray(0x5000_0000, shape=(4, 4), strides=(16, 4)),), device=dev)  # compact: fine


def test_a_closed_device_array_is_refused(drv, dev):
    arr = dev.array(4)
    arr.close()
    with pytest.raises(InvalidArgumentError, match="closed"):
        PackedArgs(("ptr",), (arr,), device=dev)


def test_a_dlpack_only_array_is_read_from_its_capsule(drv, dev):
    from fake_interop import DlpackOf

    with dev.array(8) as arr:
        producer = DlpackOf(arr)
        p = PackedArgs(("ptr",), (producer,), device=dev)
        assert p.raw() == struct.pack("<Q", arr.ptr)
        assert producer.calls == [{"stream": 2, "max_version": (1, 0)}]  # per-thread stream, then synchronized
        assert int(drv.CU_STREAM_PER_THREAD) in drv.synchronized
        old = DlpackOf(arr, accepts_max_version=False)  # a pre-1.0 producer
        PackedArgs(("ptr",), (old,), device=dev)
        assert old.calls == [{"stream": 2}]


def test_a_refused_interface_falls_back_to_dlpack_or_says_why(drv, dev):
    from fake_interop import RefusingCai

    with pytest.raises(InvalidArgumentError, match="requires grad"):
        PackedArgs(("ptr",), (RefusingCai(0x1000),), device=dev)
