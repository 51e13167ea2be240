"""The graph-launch scaling study on the GPU: every way (C, cugraphlab, the bare binding) times repeat launches of
real straight lines of empty kernels, the graphs have the expected nodes and edges, and the record reads against
NVIDIA's model. No timing is compared with another: only that each was taken and is a time."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_every_way_times_repeat_launches_of_real_lines(device):
    from studies.graph_launch_scaling.protocol import WAYS, model_fits, render, verdict
    from studies.graph_launch_scaling.run import measure

    rec = measure(device, (4, 64, 256), trials=40, rounds=4)
    assert rec["native"] == "built", rec["native"]
    assert all(ck["ok"] for ck in rec["checks"]) and len(rec["checks"]) == 3
    for p in rec["points"]:
        for way in WAYS:
            got = p["ways"][way]
            assert len(got["api_us"]) == len(got["total_us"]) == 40
            assert all(0 < a <= t for a, t in zip(got["api_us"], got["total_us"])), way
    assert set(model_fits(rec)) == set(WAYS)
    assert verdict(rec)["path"] in ("12.6+", "between", "pre-12.6")
    assert "verdict (C series)" in render(rec)
