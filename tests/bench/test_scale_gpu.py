"""cugraphlab scale on a GPU: small runs, every worker checked, rates positive, evidence complete."""
from __future__ import annotations

import pytest

from cugraphlab.bench.scale.plan import make_config, resolve_devices
from cugraphlab.bench.scale.run import run_scale
from cugraphlab.report.scale import csv_rows, render_scale

pytestmark = pytest.mark.gpu


def _run(**kwargs):
    base = dict(threads="2", devices="0", launches=500, repeats=2, timeout_s=120, gil_seconds=0.2, evidence="all")
    return run_scale(resolve_devices(make_config(**{**base, **kwargs}))).to_dict()


def test_chain_on_two_threads_is_bit_exact_with_positive_rates():
    record = _run(work="chain", launch="eager,graph,graphK", unroll=10, seed=7)
    rows = record["points"]
    assert [(r["workers"], r["kind"]) for r in rows] == [(1, "eager"), (1, "graph"), (1, "graph10"),
                                                         (2, "eager"), (2, "graph"), (2, "graph10")]
    for r in rows:
        assert r["ok"], r["errors"]
        assert r["verified"] is True and r["mismatches"] == 0 and r["checks"] >= 2 * r["workers"]
        assert r["calls_per_s"] > 0 and r["iters_per_s"] > 0 and r["worker_calls_per_s"]["median"] > 0
        assert r["evidence"] and all(e["complete"] and 0 <= e["idle_fraction"] < 1 for e in r["evidence"])
        assert r["speedup"] > 0
    assert record["gil"] and "error" not in record["gil"] and record["gil_verdict"]["released"] in (True, False, None)
    text = render_scale(record)
    assert "bit-exact" in text and "FAILED" not in text
    assert len(csv_rows(record)) == len(rows)


def test_empty_kernel_on_a_shared_stream_counts_every_launch():
    record = _run(work="empty", stream="shared", launch="eager,graph", gil_seconds=0)
    for r in record["points"]:
        assert r["ok"], r["errors"]
        assert r["launches_counted"] is True and r["verified"] is True
        assert r["calls_per_s"] > 0
        # one kernel per launch, counted on the device: the evidence covers all of them
        assert sum(e["kernels"] for e in r["evidence"]) == r["workers"] * 500


def test_one_process_per_gpu_when_there_are_two():
    from cugraphlab.core.device import device_count

    if device_count() < 2:
        pytest.skip("needs two GPUs")
    record = _run(threads="1", devices="0,1", launch="eager", gil_seconds=0)
    axes = {r["axis"]: r for r in record["points"]}
    assert set(axes) == {"threads", "gpus", "processes"}
    for r in axes.values():
        assert r["ok"] and r["verified"] is True, r["errors"]
    assert axes["processes"]["processes"] == 2 and axes["processes"]["speedup"] > 0
    assert {e["device"] for e in axes["processes"]["evidence"]} == {0, 1}
