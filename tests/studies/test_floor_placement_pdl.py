"""bench.floor_placement_pdl: which ways run at which size, the median-placement verdict, and the study end to end on
the fake driver (rows per way and placement, every handle released once; the fake's figures mean nothing)."""
from __future__ import annotations

import pathlib

import pytest

from studies.floor.placement_pdl import GOALS, placement_verdict, ways_for

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_graphs_of_50_iterations_only_at_1024():
    assert [w[0] for w in ways_for(1 << 20)] == ["plain", "pdl", "pdl_early"]
    assert [w[0] for w in ways_for(1024)] == ["plain", "pdl", "pdl_early", "plain_x50", "pdl_x50"]
    assert GOALS[("pdl", 1024)] == 3.8 and GOALS[("pdl_x50", 1024)] == 2.2 and GOALS[("pdl", 1 << 20)] == 9.3


def test_the_verdict_is_the_median_placement():
    v = placement_verdict([3.9, 3.7, 3.75, 3.85], 3.8)
    assert v["median"] == pytest.approx(3.8) and v["met"] and v["meeting"] == 2 and (v["low"], v["high"]) == (3.7, 3.9)
    v = placement_verdict([3.9, 3.81, 3.7], 3.8)
    assert not v["met"] and v["meeting"] == 1
    assert "met" not in placement_verdict([1.0, 2.0], None)


@pytest.fixture
def shape_driver(monkeypatch):
    from fake_shapes import install_shape_driver

    yield install_shape_driver(monkeypatch, ROOT)


def test_every_way_and_placement_is_a_row(shape_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.experiment.chain import chain_kernels
    from studies.floor.placement_pdl import measure_placement_pdl
    from studies.floor.record import FloorStudiesResult

    monkeypatch.setattr("cugraphlab.graphs.pdl.require_pdl", lambda *a, **k: None)
    r, lines = FloorStudiesResult(), []
    with Device(0) as dev, chain_kernels(dev, ("add", "mul", "sub", "relu")) as ks:
        measure_placement_pdl(dev, r, kernels=ks, sizes=(1024,), chains=2, iters=100, rounds=2, say=lines.append)
    keys = {row.key for row in r.rows}
    assert keys == {f"{w}_{i}_1024" for w in ("plain", "pdl", "pdl_early", "plain_x50", "pdl_x50") for i in (0, 1)}
    assert all(row.n == 2 for row in r.rows)
    verdicts = r.sections["placement_pdl"]["1024"]["verdicts"]
    assert set(verdicts) == {"plain", "pdl", "pdl_early", "plain_x50", "pdl_x50"}
    assert verdicts["pdl"]["goal"] == 3.8 and verdicts["pdl"]["placements"] == 2
    assert len(lines) == 5 and all(line.startswith("placement_pdl 1,024") for line in lines)
    assert shape_driver.live("memory") == [] and shape_driver.live("graph exec") == []
    assert shape_driver.live("module") == [] and shape_driver.released_twice() == []
