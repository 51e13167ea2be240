"""The L2 read roof without a GPU: kernels/l2read.cu compiles and its loads go to L2 only, and the NumPy reference
gives exactly what a literal, thread-by-thread reading of the kernel's loops sums."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

from cugraphlab.core.errors import InvalidArgumentError
from studies.floor.l2_roof import OUT_POISON, l2read_reference, read_bytes, reps_for

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"


def _kernel_by_hand(words, grid, block, reps):
    """kernels/l2read.cu read literally: every thread's loops (the 4-way step, then the tail), wrapping u32 sums."""
    n4 = words.size // 4
    w = [int(v) for v in words]
    out = []
    stride = grid * block
    for b in range(grid):
        block_sum = 0
        for t in range(block):
            tid = b * block + t
            acc = 0
            for r in range(reps):
                shift = (r * block) % n4

                def load(i):
                    j = i + shift
                    if j >= n4:
                        j -= n4
                    return sum(w[4 * j: 4 * j + 4])

                i = tid
                while i + 3 * stride < n4:
                    acc += load(i) + load(i + stride) + load(i + 2 * stride) + load(i + 3 * stride)
                    i += 4 * stride
                while i < n4:
                    acc += load(i)
                    i += stride
            block_sum += acc % 2**32
        out.append(block_sum % 2**32)
    return np.array(out, dtype=np.uint32)


@pytest.mark.parametrize("n4,grid,block,reps", [(64, 2, 4, 1), (64, 2, 4, 3), (37, 3, 4, 5), (5, 2, 8, 2),
                                                (200, 4, 8, 7), (16, 1, 16, 1)])
def test_reference_matches_the_kernel_read_by_hand(n4, grid, block, reps):
    rng = np.random.default_rng(n4 * 31 + reps)
    words = rng.integers(0, 2**32, size=4 * n4, dtype=np.uint32)  # large values: the sums wrap
    assert np.array_equal(l2read_reference(words, grid, block, reps), _kernel_by_hand(words, grid, block, reps))


def test_reference_moves_with_the_shift_and_the_data():
    words = np.random.default_rng(1).integers(0, 2**32, size=4 * 96, dtype=np.uint32)
    once = l2read_reference(words, 3, 8, 1)
    # repetitions shift the mapping: blocks sum other words, so r reps are not r times one rep
    assert not np.array_equal(l2read_reference(words, 3, 8, 2), (2 * once.astype(np.uint64)).astype(np.uint32))
    changed = words.copy()
    changed[5] ^= 1
    assert not np.array_equal(l2read_reference(changed, 3, 8, 1), once)
    # over all blocks every word is read exactly reps times
    total = int(words.astype(np.uint64).sum())
    assert int(l2read_reference(words, 3, 8, 4).astype(np.uint64).sum()) % 2**32 == (4 * total) % 2**32


def test_reference_rejects_bad_input():
    with pytest.raises(InvalidArgumentError):
        l2read_reference(np.zeros(6, np.uint32), 1, 32, 1)
    with pytest.raises(InvalidArgumentError):
        l2read_reference(np.zeros(8, np.uint32), 0, 32, 1)


def test_reps_and_bytes():
    assert reps_for(8 << 20) == 16 and reps_for(12 << 20) == 11 and reps_for(24 << 20) == 6
    assert reps_for(256 << 20) == 1
    assert read_bytes(1 << 20, 3) == 48 << 20
    with pytest.raises(InvalidArgumentError):
        reps_for(0)
    assert OUT_POISON == 0x7FC0DEAD


def test_the_kernel_compiles_and_reads_through_l2_only():
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source
    from cugraphlab.core.sources import read_headers

    src = (KERNELS / "l2read.cu").read_text()
    ptx = compile_source(src, "l2read", arch="compute_90", kind="ptx", headers=read_headers(), cache=Cache(None))
    text = ptx.image.rstrip(b"\0").decode()
    assert ".entry l2read(" in text
    loads = [line for line in text.splitlines() if "ld.global" in line]
    assert loads and all("ld.global.cg" in line for line in loads), loads
    assert "st.global.u32" in text or "st.global.b32" in text
    cubin = compile_source(src, "l2read", arch="sm_90", kind="cubin", headers=read_headers(), cache=Cache(None))
    assert cubin.image[:4] == b"\x7fELF"
