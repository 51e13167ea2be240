"""The floor's PDL rows without a GPU: plain, PDL and PDL early graphs interleaved, the saving per programmatic edge
as a paired difference over the edges the captured graph really has, the 50-per-graph rows at 1,024 floats, the
reason where PDL is missing, and the sentences the report makes of them."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

OPS = ("add", "mul", "sub", "relu")


@pytest.fixture
def floor_driver(monkeypatch):
    from fake_floor import install_floor_driver

    yield install_floor_driver(monkeypatch)


def _timeline(ops, iters=3):
    from fake_floor import stamped_timeline

    return stamped_timeline(ops, iters)


def _measure(monkeypatch, **kw):
    from cugraphlab import Device
    from fake_floor import FakeNativeFloor
    from studies.floor.measure import measure_floor

    monkeypatch.setattr("cugraphlab.bench.measure.timeline.measure_timeline", lambda *a, **k: _timeline(OPS))
    monkeypatch.setattr("cugraphlab.bench.measure.latency_native.open_native_floor", lambda: (FakeNativeFloor(), ""))
    with Device(0) as dev:
        return measure_floor(dev, sizes=(1 << 16, 1024), iters=100, repeats=2, host_k=5, host_samples=2, **kw)


def test_pdl_rows_at_both_sizes_and_unrolled_at_1024(floor_driver, monkeypatch):
    from studies.floor.report import render_floor

    r = _measure(monkeypatch)
    for n in (1 << 16, 1024):
        keys = {row.key for row in r.rows if row.size == n}
        assert {"pdl_graph_iter", "pdl_early_graph_iter", "pdl_saving", "pdl_early_saving"} <= keys
        assert "3 per iteration" in r.row(n, "pdl_saving").what  # 4 programmatic launches captured: 3 edges
    keys_1024 = {row.key for row in r.rows if row.size == 1024}
    assert {"graph_x50_iter", "pdl_graph_x50_iter", "pdl_early_graph_x50_iter", "pdl_saving_x50",
            "pdl_early_saving_x50"} <= keys_1024
    assert "3.98 per iteration" in r.row(1024, "pdl_saving_x50").what  # 200 launches: 199 edges over 50 iterations
    assert "graph_x50_iter" not in {row.key for row in r.rows if row.size == 1 << 16}
    text = render_floor(r)
    assert "1,024 floats, 50 iterations per graph: plain" in text and "PDL early" in text
    assert "65,536 floats, one graph per iteration: plain" in text


def test_without_pdl_the_rows_say_why(floor_driver, monkeypatch):
    from cugraphlab.core.errors import UnsupportedError

    def no_pdl(device, graphs=False):
        raise UnsupportedError("programmatic dependent launch needs sm_90 or newer (this GPU is sm_80)")

    monkeypatch.setattr("cugraphlab.graphs.pdl.require_pdl", no_pdl)
    r = _measure(monkeypatch)
    row = r.row(1024, "pdl_graph_iter")
    assert row.us is None and "sm_90" in row.note
    assert not any(k.startswith("pdl_saving") for k in (x.key for x in r.rows))


def test_the_saving_is_the_paired_difference_over_the_edges(monkeypatch):
    import studies.floor.measure as floor

    monkeypatch.setattr("cugraphlab.graphs.pdl.programmatic_edge_count", lambda g: 3)
    ok = SimpleNamespace(ok=True)
    pdl = SimpleNamespace(verify=lambda *a: ok, capture=lambda u: SimpleNamespace(close=lambda: None))
    chain = SimpleNamespace(verify=lambda *a: ok)
    added = {}

    def add(size, key, what, values, clock, nbytes=None, verified=None, note=""):
        added[key] = (list(values), what, clock, verified)

    dev_us = {"graph": [10.0, 10.3], "pdl_graph": [9.7, 9.7], "pdl_early_graph": [9.4, 9.1]}
    floor._pdl_rows(add, [], 1 << 20, 4, chain, {"pdl": pdl, "pdl_early": pdl}, "", None, dev_us)
    assert added["pdl_saving"][0] == pytest.approx([0.1, 0.2])
    assert added["pdl_early_saving"][0] == pytest.approx([0.2, 0.4])
    assert added["pdl_graph_iter"][0] == [9.7, 9.7] and added["pdl_graph_iter"][2] == "device"
    assert "paired" in added["pdl_saving"][2]
