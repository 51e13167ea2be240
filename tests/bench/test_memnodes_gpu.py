"""``cugraphlab memnodes`` on the GPU: the record verified at both sizes (every shape bit-exact, the footprint and
free memory back at the start after close + trim), figures present and plausible."""
from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.gpu


def test_measure_memnodes_verifies_and_reports(device):
    from cugraphlab.bench.graphs.memnodes import MEM_ROWS, PRE_ROW, measure_memnodes
    from cugraphlab.experiment.memchain import MEMCHAIN_SHAPES
    from cugraphlab.report.memnodes import render_memnodes

    r = measure_memnodes(device, [1 << 20, 1024], 500, 3, first_samples=3, seed=11)
    text = render_memnodes(r)
    assert r.verified, text
    for s in r.sizes:
        assert s.shapes() == list(MEMCHAIN_SHAPES)
        for name in [*(MEM_ROWS[sh] for sh in MEMCHAIN_SHAPES), PRE_ROW]:
            row = s.steady_row(name)
            assert math.isfinite(row.device_us_per_iter.median) and row.mismatches == 0, name
        # the figures exist (their sign: benchmarks/ratio_figures.py --only signs, with intervals)
        assert all(math.isfinite(f.complete_us.median + f.host_api_us.median) and f.mismatches == 0 for f in s.first)
        assert any(f.used_current > 0 for f in s.footprint)
        assert s.footprint_check["ok"], s.footprint_check
        assert s.reuse_ok, s.shape_reuse
    assert "% wall vs the preallocated chain" in text and "goal" not in text
