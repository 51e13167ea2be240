"""Every floor study end to end on the fake driver (no GPU): the rows and raw samples exist, the launch shapes asked
for are the ones launched, every handle made is released once, and the report renders. The fake's memory holds no
data, so the checks' outcomes and the figures mean nothing here: the GPU run checks those."""
from __future__ import annotations

import pathlib
from types import SimpleNamespace

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPS = ("add", "mul", "sub", "relu")


@pytest.fixture
def shape_driver(monkeypatch):
    from fake_shapes import install_shape_driver

    yield install_shape_driver(monkeypatch, ROOT)


def _timeline(ops, iters):
    """Stamps of ``iters`` graph iterations: kernels 1.5 us busy, 0.9 us apart inside, 2.5 us across a boundary."""
    events, t = [], 1_000
    for _ in range(iters):
        for j, op in enumerate(ops):
            events.append({"kernel": op, "start_ns": t, "end_ns": t + 1_500})
            t += 1_500 + (900 if j < len(ops) - 1 else 2_500)
    mode = SimpleNamespace(events=events, verified=True)
    return SimpleNamespace(mode=lambda name: mode)


def _no_leaks(fake):
    assert fake.live("memory") == [] and fake.live("graph exec") == [] and fake.live("stream") == []
    assert fake.live("module") == [] and fake.released_twice() == []


def test_placement_and_boundary_rows(shape_driver):
    from cugraphlab import Device
    from cugraphlab.experiment.chain import chain_kernels
    from studies.floor.placement import measure_placement
    from studies.floor.record import FloorStudiesResult
    from studies.floor.shapes import measure_boundary

    r = FloorStudiesResult()
    lines = []
    with Device(0) as dev, chain_kernels(dev, OPS) as ks:
        measure_placement(dev, r, kernels=ks, sizes=(4096,), chains=3, iters=4, rounds=2, solo_rounds=2,
                          say=lines.append)
        measure_boundary(dev, r, kernels=ks, sizes=(4096,), unrolls=(1, 2, 4), iters=3, rounds=2, say=lines.append)
    keys = {row.key for row in r.rows}
    assert {"chain0_4096", "chain1_4096", "chain2_4096", "solo_4096"} <= keys
    assert {"x1_4096", "x2_4096", "x4_4096", "diff_x4_4096", "excess_x4_4096", "excess_x2_4096"} <= keys
    assert r.row("boundary", "x4_4096").n == 2 and "boundary: excess_x4_4096" in r.samples
    note = r.sections["placement"]["4096"]
    assert set(note["addresses"]) == {"chain0", "chain1", "chain2"} and note["spread"]["between"] >= 0
    # three chains, three different sets of buffers
    xs = {note["addresses"][c]["x"] for c in note["addresses"]}
    assert len(xs) == 3
    assert any(line.startswith("placement 4,096") for line in lines)
    _no_leaks(shape_driver)


def test_gap_grid_uses_the_shapes_asked_for(shape_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.experiment.chain import chain_kernels
    from studies.floor.record import FloorStudiesResult
    from studies.floor.shapes import measure_gap_grid

    asked = []

    def timeline(device, *, ops, size, iters, modes, probe=False, launch_config=None):
        asked.append((probe, launch_config.grid[0], launch_config.block[0]))
        return _timeline(ops, iters)

    monkeypatch.setattr("cugraphlab.bench.measure.timeline.measure_timeline", timeline)
    r = FloorStudiesResult()
    with Device(0) as dev, chain_kernels(dev, OPS) as ks:
        shape_driver.shapes.clear()
        measure_gap_grid(dev, r, kernels=ks, n=1 << 16, empty_shapes=((1, 32), (7, 64)), grids=(1, 5),
                         empty_unroll=2, empty_iters=4, target_ms=0.1, rounds=2, timeline_iters=2, say=lambda _: None)
    assert asked == [(False, 1, 256), (False, 5, 256), (True, 1, 32), (True, 7, 64)]
    seen = set(shape_driver.shapes)
    assert {(1, 32), (7, 64), (1, 256), (5, 256)} <= seen
    keys = {row.key for row in r.rows}
    assert {"empty_1x32_1", "empty_1x32_4", "empty_7x64_4u", "empty_7x64_node_1u", "chain_grid1", "chain_grid5",
            "tl_inside_grid5", "tl_busy_grid1", "tl_empty_inside_7x64"} <= keys
    assert r.row("gap_grid", "chain_grid1").extra["float4_per_thread"] == (1 << 14) // 256
    assert r.row("gap_grid", "tl_inside_grid5").clock == "globaltimer"
    assert r.row("gap_grid", "tl_inside_grid5").median == pytest.approx(0.9)
    assert r.row("gap_grid", "tl_boundary_grid5").median == pytest.approx(2.5)
    _no_leaks(shape_driver)


def test_timeline_takes_a_launch_config(shape_driver, monkeypatch):
    from cugraphlab import Device
    from cugraphlab.bench.measure.timeline import measure_timeline
    from cugraphlab.bench.stats.summary import summarize
    from cugraphlab.core.launch import LaunchConfig

    # the fake's memory holds no stamps: summarize nothing, look at the launches
    zero = summarize([0.0], unit="us", clock="")
    monkeypatch.setattr("cugraphlab.bench.measure.timeline._summaries", lambda events: (zero, zero, 0.0))

    with Device(0) as dev:
        shape_driver.shapes.clear()
        tl = measure_timeline(dev, size=1 << 16, iters=2, modes=("eager",), launch_config=LaunchConfig(3, 128))
        assert (tl.config["grid"], tl.config["block"]) == (3, 128)
        assert (3, 128) in shape_driver.shapes
        probe = measure_timeline(dev, size=1024, iters=2, modes=("eager",), probe=True)
        assert (probe.config["grid"], probe.config["block"]) == (1, 32)
    _no_leaks(shape_driver)


def test_fused_shapes_and_l2_read_rows(shape_driver):
    from cugraphlab import Device
    from cugraphlab.experiment.chain import chain_kernels
    from studies.floor.l2_roof import measure_l2_read
    from studies.floor.record import FloorStudiesResult
    from studies.floor.report_studies import render_floor_studies
    from studies.floor.shapes import measure_fused_shapes

    r = FloorStudiesResult(config={"sections": ["fused_shapes", "l2_read"], "seconds": {"fused_shapes": 1.0}})
    with Device(0) as dev, chain_kernels(dev, OPS) as ks:
        shape_driver.shapes.clear()
        measure_fused_shapes(dev, r, kernels=ks, n=1 << 16, blocks=(128, 256), per_sm=(1, 8), iters=3, rounds=2,
                             dram_gbps=4000.0, say=lambda _: None)
        measure_l2_read(dev, r, sizes_mib=(1, 8), shapes=((256, 2), (512, 1)), per_graph=2, target_ms=0.1, rounds=2,
                        say=lambda _: None)
    keys = {row.key for row in r.rows}
    assert {"warm_128x1", "cold_128x1", "warm_256x8", "cold_256x8"} <= keys
    assert {"read_1_256x2", "read_8_512x1"} <= keys
    assert r.row("fused_shapes", "warm_256x8").extra["default_shape"] is True
    assert r.row("fused_shapes", "warm_256x8").extra["grid"] == 64  # 2^14 float4 / 256, under the 8/SM cap
    assert "meets_goal" in r.row("fused_shapes", "warm_128x1").extra
    assert "of_roof" in r.row("fused_shapes", "cold_128x1").extra
    # fused at block 128 (2^14 float4 need 128 blocks, under the 132 cap) and l2read at 512 x 132 and 256 x 264
    assert r.row("fused_shapes", "cold_128x1").extra["grid"] == 128
    assert {(128, 128), (132, 512), (264, 256)} <= set(shape_driver.shapes)
    read = r.row("l2_read", "read_8_512x1")
    assert read.unit == "GB/s" and read.extra["reps"] == 16 and "DRAM" in read.extra["working_set"]
    assert set(r.sections["l2_read"]["best"]) == {"1", "8"}
    text = render_floor_studies(r)
    assert "== fused_shapes ==" in text and "== l2_read ==" in text and "best warm" in text
    _no_leaks(shape_driver)


def test_graph_table_first(shape_driver):
    from cugraphlab import Device
    from studies.floor.first import measure_graph_table
    from studies.floor.report_studies import render_graph_table

    with Device(0) as dev:
        r = measure_graph_table(dev, sizes=(1 << 16, 1024), iters=4, rounds=2, unroll=2, unroll_sizes=(1024,))
    keys = {(row.size, row.key) for row in r.rows}
    assert {(1 << 16, "graph_iter"), (1 << 16, "pdl_graph_iter"), (1 << 16, "pdl_early_graph_iter"),
            (1024, "graph_x2_iter"), (1024, "pdl_graph_x2_iter"), (1024, "pdl_early_saving_x2")} <= keys
    assert (1 << 16, "graph_x2_iter") not in keys
    text = render_graph_table(r, position=0)
    assert text.startswith("graph table (first in its process") and "PDL early" in text
    _no_leaks(shape_driver)
