"""bench.nodes on a real GPU, small: every lesson measured (host, event, child, controls with set-params, exec update,
re-instantiate, instantiate+upload and priorities) and every run bit-exact. The first H200 run of benchmarks/nodes.py
segfaulted in the controls lesson (set-params with the kernel arguments of a dropped launch); the GPU tests then only
ran the lesson checks, not the measurement: this runs it."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_measure_nodes_small_is_bit_exact_in_every_lesson(device):
    from cugraphlab.bench.graphs.nodes import LESSONS, measure_nodes

    messages = []
    r = measure_nodes(device, 1 << 14, repeats=2, iters=10, calls=40, seed=3, progress=messages.append)
    failed = [c["text"] for c in r.checks if not c["ok"]]
    assert r.verified, failed
    assert len(messages) == len(LESSONS)
    for label in ("host per cuGraphExecKernelNodeSetParams", "host per cuGraphNodeSetEnabled",
                  "host per cuGraphExecUpdate", "host instantiate+upload, one call", "flat chain: host cuGraphLaunch"):
        row = r.row(label)
        assert row.summary.n == 2 and row.summary.median > 0, label
    assert r.to_dict()["verified"] is True
