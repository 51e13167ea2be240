"""The chain's definition, reference and bit comparison (no GPU needed)."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.memory import POISON_BITS, validate_size
from cugraphlab.experiment.ops import DEFAULT_OPS, compare_bits, fused_source, parse_ops, reference


def test_parse_ops():
    assert parse_ops("add, mul,sub,relu") == DEFAULT_OPS
    assert parse_ops(["relu"]) == ("relu",)
    for bad in ("", " , ", "add,div", ["mul", "exp"]):
        with pytest.raises(InvalidArgumentError):
            parse_ops(bad)


def test_reference_is_the_classic_chain(rng):
    x = rng.standard_normal(4099, dtype=np.float32)
    y = rng.standard_normal(4099, dtype=np.float32)
    t = (x + y) * np.float32(2.0) - y
    expected = np.where(t > 0, t, 0).astype(np.float32)
    got = reference(DEFAULT_OPS, x, y, 2.0)
    assert got.dtype == np.float32 and np.array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert 0.3 < np.mean(got == 0) < 0.7  # relu clips about half: the inputs are not degenerate


def test_reference_relu_maps_nan_and_negative_zero_to_zero():
    x = np.array([np.nan, -0.0, -1.0, 3.0], dtype=np.float32)
    got = reference(("relu",), x, x, 1.0)
    assert got.view(np.uint32).tolist() == [0, 0, 0, np.float32(3.0).view(np.uint32)]


def test_compare_bits_finds_poison_and_first_difference(rng):
    ref = rng.standard_normal(100, dtype=np.float32)
    got = ref.copy()
    assert compare_bits("graph", got, ref).ok
    got.view(np.uint32)[[17, 60]] = POISON_BITS
    v = compare_bits("graph", got, ref)
    assert not v.ok and v.mismatches == 2 and v.first_bad == 17 and np.isnan(v.got)
    assert "2 of 100" in str(v)


def test_fused_source_spells_the_chain():
    src = fused_source("mul,relu,add")
    first = src.splitlines()[0]
    assert first == "#define CGL_CHAIN(v, y, s) op_add(op_relu(op_mul((v), (s))), (y))"
    assert 'extern "C" __global__ void fused' in src


@pytest.mark.parametrize("bad", [0, -5, 1.5, "10", True, None])
def test_sizes_must_be_positive_ints(bad):
    with pytest.raises(InvalidArgumentError):
        validate_size(bad)


def test_compare_bits_on_two_dimensional_arrays_names_the_flat_index():
    """A 2-D answer (the capstone's batch of rows) that differs is reported, not a TypeError (H200, round 9)."""
    import numpy as np

    from cugraphlab import compare_bits

    rng = np.random.default_rng()
    want = rng.standard_normal((4, 8)).astype(np.float32)
    got = want.copy()
    got[2, 3] = np.float32(got[2, 3] * 2 + 1)
    v = compare_bits("rows", got, want)
    assert not v.ok and v.mismatches == 1 and v.first_bad == 2 * 8 + 3
    assert v.got == float(got[2, 3]) and v.expected == float(want[2, 3])
    assert compare_bits("rows", want.copy(), want).ok
    short = compare_bits("rows", want[0], want)
    assert not short.ok and "shape (8,), expected (4, 8)" in str(short)
