"""``cugraphlab memnodes`` on the GPU: the record verified at both sizes, figures present and plausible."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_measure_memnodes_verifies_and_reports(device):
    from cugraphlab.bench.memnodes import MEM_ROW, PRE_ROW, measure_memnodes
    from cugraphlab.report.memnodes import render_memnodes

    r = measure_memnodes(device, [1 << 20, 1024], 500, 3, first_samples=3, seed=11)
    assert r.verified, render_memnodes(r)
    for s in r.sizes:
        mem, pre = s.steady_row(MEM_ROW), s.steady_row(PRE_ROW)
        assert mem.device_us_per_iter.median > 0 and pre.device_us_per_iter.median > 0
        assert all(f.complete_us.median >= f.host_api_us.median for f in s.first)
        assert any(f.used_current > 0 for f in s.footprint)
    assert "goal within 2%" in render_memnodes(r)
