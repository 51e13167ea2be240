"""The nodes record and its rendering without a GPU: kind, samples kept per row, JSON round trip, text."""
from __future__ import annotations

import json

import pytest

from cugraphlab.bench.graphs.nodes import NodesResult
from cugraphlab.bench.records.record import clocks
from cugraphlab.experiment.ops import compare_bits
from cugraphlab.report.nodes import render_nodes


def _result(ok=True):
    import numpy as np

    r = NodesResult(config={"size": 1024, "repeats": 3, "iters": 10, "calls": 100, "lessons": ["host", "controls"],
                            "chain": "add -> mul 2 -> sub -> relu on 1,024 float32"},
                    clocks=clocks("device", "host_call", "host_api"))
    r.add("host", "graph, no host node", [10.0, 10.2, 10.1], "device", "10 launches per sample")
    r.add("host", "graph, host node (c)", [30.0, 31.0, 29.5], "device")
    r.add("controls", "host per cuGraphNodeSetEnabled", [0.3, 0.31, 0.29], "host_call")
    a = np.ones(8, np.float32)
    r.add_check("host", compare_bits("host c", a, a if ok else a * 2))
    r.facts["host node gap us (median, vs no host node)"] = {"host node (c)": 19.9}
    return r


def test_record_shape_and_samples():
    r = _result()
    d = json.loads(json.dumps(r.to_dict()))
    assert d["kind"] == "cugraphlab.nodes" and d["schema"] == 1 and d["verified"] is True
    assert d["samples"]["graph, host node (c)"] == {"unit": "us", "values": [30.0, 31.0, 29.5], "clock": "device"}
    assert d["rows"][0]["summary"]["median"] == pytest.approx(10.1) and d["rows"][0]["clock"] == "device"
    assert NodesResult.check(d) is d
    assert r.row("host per cuGraphNodeSetEnabled").summary.unit == "us"
    with pytest.raises(KeyError):
        r.row("nope")


def test_render_names_rows_checks_and_clocks():
    text = render_nodes(_result())
    assert "host nodes: device us per iteration" in text and "graph, host node (c)" in text
    assert "30.00" in text and "checks: 1 of 1 ok" in text and "host node (c) +19.90" in text
    assert "device = cuEventElapsedTime" in text
    bad = render_nodes(_result(ok=False).to_dict())
    assert "checks: 0 of 1 ok" in bad and "FAIL host c" in bad


def test_a_record_without_checks_is_not_verified():
    assert NodesResult().verified is False


def test_measure_nodes_runs_end_to_end_on_the_fake_driver(monkeypatch):
    """Every lesson's measuring code runs (the fake answers 1 µs to every event pair and runs host nodes); the
    outputs are not computed by a fake, so the bit-exact checks fail here and only the shape is checked."""

    from cugraphlab import Device
    from cugraphlab.bench.graphs.nodes import measure_nodes
    from fake_nodes import install

    install(monkeypatch)
    with Device(0) as dev:
        r = measure_nodes(dev, 4096, repeats=2, iters=3, calls=20)
    labels = [row.label for row in r.rows]
    assert "graph, host node (python)" in labels and "graph, host node (python), GIL-busy thread" in labels
    assert "nested chain: host cuGraphLaunch" in labels and "host per cuGraphNodeSetEnabled" in labels
    assert "host instantiate+upload, one call" in labels and "segment 0:add" in labels
    assert any(lab.startswith("latency of the chain graph") for lab in labels)
    assert set(r.samples) == set(labels) and all(len(v["values"]) >= 2 for v in r.samples.values())
    assert "HOST" in r.facts["refused instantiate (device launch with a host node)"]
    assert render_nodes(r)
    with pytest.raises(Exception, match="lessons must be among"):
        measure_nodes(dev, 64, lessons_to_run=("memory",))
