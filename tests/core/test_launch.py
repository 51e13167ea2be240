"""Argument packing byte layout and launch configuration (no GPU needed)."""
from __future__ import annotations

import ctypes
import struct

import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.launch import SLOT_BYTES, PackedArgs, grid_for


class FakeArray:
    def __init__(self, ptr):
        self.ptr = ptr


def test_layout_of_pointer_scalar_and_count():
    out, x = FakeArray(0x7F0000001000), FakeArray(0x7F0000002000)
    p = PackedArgs(("ptr", "ptr", "f32", "u64"), (out, x, 2.0, 1 << 20))
    raw = p.raw()
    assert len(raw) == 4 * SLOT_BYTES
    assert raw[0:8] == struct.pack("<Q", 0x7F0000001000)
    assert raw[8:16] == struct.pack("<Q", 0x7F0000002000)
    assert raw[16:20] == struct.pack("<f", 2.0)
    assert raw[24:32] == struct.pack("<Q", 1 << 20)


def test_pointer_array_points_at_each_slot():
    p = PackedArgs(("u64", "i32", "f64"), (7, -3, 0.5))
    ptrs = (ctypes.c_void_p * 3).from_address(p.address)
    assert [ctypes.c_uint64.from_address(ptrs[0]).value, ctypes.c_int32.from_address(ptrs[1]).value,
            ctypes.c_double.from_address(ptrs[2]).value] == [7, -3, 0.5]
    assert ptrs[1] - ptrs[0] == SLOT_BYTES


def test_set_patches_in_place_without_moving():
    p = PackedArgs(("ptr", "f32"), (FakeArray(16), 1.5))
    address, storage = p.address, ctypes.addressof(p.storage)
    p.set(1, -4.25)
    p.set(0, 4096)
    assert p.address == address and ctypes.addressof(p.storage) == storage
    assert p.raw() == struct.pack("<Q", 4096) + struct.pack("<f", -4.25) + b"\0" * 4


def test_no_arguments_pass_null():
    assert PackedArgs((), ()).address == 0


@pytest.mark.parametrize("sig,vals", [
    (("ptr",), ()),                # too few values
    (("ptr", "u64"), (1,)),        # count mismatch
    (("float",), (1.0,)),          # unknown kind
    (("ptr",), ("not a pointer",)),
])
def test_bad_arguments_are_refused(sig, vals):
    with pytest.raises(InvalidArgumentError):
        PackedArgs(sig, vals)


def test_grid_for():
    assert grid_for(1, 256, 132) == 1
    assert grid_for(256, 256, 132) == 1
    assert grid_for(257, 256, 132) == 2
    assert grid_for(262_144, 256, 132) == 1024  # 2^20 floats as float4
    assert grid_for(1 << 30, 256, 132) == 132 * 8  # capped at BLOCKS_PER_SM (8): grid-stride does the rest
    assert grid_for(1 << 30, 256, 132, 32) == 132 * 32
    with pytest.raises(InvalidArgumentError):
        grid_for(10, 2048, 132)
