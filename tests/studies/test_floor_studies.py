"""The floor studies' arithmetic without a GPU: rows and their samples, loop lengths, rotated rounds, addresses,
the spread between chains against within one, the boundary and per-node differences, shapes and bandwidths."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from studies.floor.placement import (
    PAGE_BYTES,
    chain_buffers,
    format_address,
    median_bounds,
    page_offset,
    placement_spread,
)
from studies.floor.record import FloorStudiesResult, iters_for, rotated_rounds, round_up
from studies.floor.shapes import bandwidth, boundary_excess, float4_per_thread, per_node, shape_grid


# --- rows, loops, rounds ----------------------------------------------------------------------------------------
def test_add_summarizes_keeps_samples_and_verified_reads_every_row():
    r = FloorStudiesResult()
    row = r.add("boundary", "x1_1024", "graph of 1", [3.0, 1.0, 2.0], size=1024, verified=True, unroll=1)
    assert (row.median, row.n, row.unit, row.clock, row.extra) == (2.0, 3, "us", "device", {"unroll": 1})
    assert r.samples["boundary: x1_1024"] == {"unit": "us", "values": [3.0, 1.0, 2.0], "clock": "device"}
    r.add("gap_grid", "empty", "empty", [1.0], verified=None)
    assert r.verified and r.row("boundary", "x1_1024") is row
    r.add("l2_read", "read", "read", [5000.0], unit="GB/s", verified=False)
    assert not r.verified
    d = r.to_dict()
    assert d["kind"] == "cugraphlab.study.floor.studies" and d["verified"] is False and len(d["rows"]) == 3
    assert [x.key for x in r.section_rows("boundary")] == ["x1_1024"]
    with pytest.raises(KeyError):
        r.add("x", "y", "z", [1.0], clock="stopwatch")


def test_round_up_and_iters_for():
    assert round_up(0, 50) == 0 and round_up(1, 50) == 50 and round_up(100, 50) == 100
    assert iters_for(10.0, 10.0) == 1000
    assert iters_for(2.3, 5.0, multiple=50) % 50 == 0
    assert iters_for(1e6, 1.0, lo=3) == 3  # a very slow loop still gets ``lo``
    assert iters_for(0.001, 10.0, hi=2000) == 2000
    assert iters_for(0.001, 10.0, multiple=7, hi=100) == 98  # hi rounded down to the multiple
    assert iters_for(1e6, 1.0, multiple=10, lo=3) == 10  # lo rounded up to it
    with pytest.raises(ValueError):
        iters_for(0.0, 1.0)
    with pytest.raises(ValueError):
        round_up(3, 0)


def test_rotated_rounds_put_every_variant_in_every_position():
    order = []
    out = rotated_rounds(["a", "b", "c"], 3, lambda name: order.append(name) or float(len(order)))
    assert order == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert out == {"a": [1.0, 6.0, 8.0], "b": [2.0, 4.0, 9.0], "c": [3.0, 5.0, 7.0]}


# --- placement ----------------------------------------------------------------------------------------------------
def test_addresses_and_page_offsets():
    ptr = 0x7F2A40200000 + 0x1234
    assert PAGE_BYTES == 2 << 20 and page_offset(ptr) == 0x1234
    assert format_address(ptr) == "0x7f2a40201234 (+0x001234)"
    assert format_address(0x400000) == "0x400000 (+0x000000)"
    assert format_address(0x1FFFFF) == "0x1fffff (+0x1fffff)"
    assert format_address(0x1003, page=0x1000) == "0x1003 (+0x003)"
    with pytest.raises(ValueError):
        page_offset(-1)


def test_chain_buffers_names_every_buffer():
    def buf(p):
        return SimpleNamespace(ptr=p)

    chain = SimpleNamespace(ops=("add", "mul", "sub", "relu"), x=buf(1), y=buf(2), outs=[buf(3), buf(4), buf(5), buf(6)],
                            out_fused=buf(7))
    assert chain_buffers(chain) == {"x": 1, "y": 2, "out_add": 3, "out_mul": 4, "out_sub": 5, "out_relu": 6,
                                    "out_fused": 7}
    twice = SimpleNamespace(ops=("add", "add"), x=buf(1), y=buf(2), outs=[buf(3), buf(4)], out_fused=buf(5))
    assert list(chain_buffers(twice)) == ["x", "y", "out0_add", "out1_add", "out_fused"]


def test_median_bounds():
    assert all(math.isnan(v) for v in median_bounds([1, 2, 3, 4, 5]))
    lo, hi = median_bounds(list(range(1, 101)))
    # n = 100: ranks floor(50 - 9.8) = 40 and ceil(50 + 9.8) = 60
    assert (lo, hi) == (40.0, 60.0)


def test_placement_spread_separates_an_offset_from_noise():
    noise = [0.0, 0.01, -0.01, 0.005, -0.005, 0.002, -0.002, 0.0]
    same = [[10.0 + e for e in noise] for _ in range(4)]
    s = placement_spread(same)
    assert s["between"] == pytest.approx(0.0, abs=1e-12) and s["separated"] is False and s["ratio"] < 1
    offset = same[:3] + [[11.0 + e for e in noise]]
    s = placement_spread(offset)
    assert s["slowest"] == 3 and s["between"] == pytest.approx(1.0)
    assert s["separated"] is True and s["ratio"] > 10
    assert s["within"] == pytest.approx(s["within_max"])
    few = placement_spread([[1.0, 2.0], [3.0]])
    assert few["separated"] is None and few["between"] == pytest.approx(1.5)
    flat = placement_spread([[1.0] * 6, [2.0] * 6])
    assert flat["within"] == 0 and flat["ratio"] == math.inf and flat["separated"] is True
    with pytest.raises(ValueError):
        placement_spread([[1.0], []])


# --- shapes -------------------------------------------------------------------------------------------------------
def test_boundary_excess_recovers_b_minus_g():
    w, b, g, u = 8.0, 3.2, 1.3, 50
    one, many = w + b, w + ((u - 1) * g + b) / u
    assert boundary_excess(one, many, u) == pytest.approx(b - g)
    with pytest.raises(ValueError):
        boundary_excess(1.0, 1.0, 1)


def test_per_node_float4_and_grid():
    assert per_node(10.0, 4.0, 4, 1) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        per_node(1.0, 1.0, 1, 1)
    n = 1 << 20
    assert float4_per_thread(n, 1024, 256) == 1 and float4_per_thread(n, 132, 256) == 8
    assert float4_per_thread(n, 1, 256) == 1024 and float4_per_thread(1027, 1, 256) == 2
    assert [shape_grid(n, 256, bps, 132) for bps in (1, 2, 8, 32)] == [132, 264, 1024, 1024]
    assert shape_grid(n, 512, 4, 132) == 512 and shape_grid(n, 128, 1, 132) == 132


def test_bandwidth_against_a_roof():
    b = bandwidth(12 << 20, 3.0, 4162.0)
    assert b["gbps"] == pytest.approx((12 << 20) / 3.0 / 1e3)
    assert b["at_roof_us"] == pytest.approx((12 << 20) / 4162.0 / 1e3)
    assert b["of_roof"] == pytest.approx(b["gbps"] / 4162.0)
    assert set(bandwidth(1, 1.0)) == {"gbps"}
    with pytest.raises(ValueError):
        bandwidth(1, 0.0)
