"""The floor table without a GPU: bytes per op, splitting a timeline into busy time, inside gaps and boundaries,
the rendered table, and the script's parser."""
from __future__ import annotations

import pytest

from studies.floor.measure import FloorResult, FloorRow, op_bytes, split_timeline
from studies.floor.report import render_floor

MIB = 2 ** 20


def test_bytes_each_op_really_moves():
    n = 1 << 20
    assert [op_bytes(op, n) / MIB for op in ("add", "mul", "sub", "relu", "fused")] == [12, 8, 12, 8, 12]


def test_split_timeline_separates_inside_gaps_from_graph_boundaries():
    ops = ["add", "mul", "sub", "relu"]
    events, t = [], 1_000
    for _ in range(3):  # 3 iterations: kernels busy 1.5 us, 0.9 us apart inside, 2.5 us across the boundary
        for j, op in enumerate(ops):
            events.append({"kernel": op, "start_ns": t, "end_ns": t + 1_500})
            t += 1_500 + (900 if j < 3 else 2_500)
    parts = split_timeline(events, 4)
    assert set(parts["busy"]) == set(ops) and all(v == [1.5] * 3 for v in parts["busy"].values())
    assert parts["inside"] == pytest.approx([0.9] * 9)
    assert parts["boundary"] == pytest.approx([2.5] * 2)


def _row(size, key, what, us, nbytes=None, verified=True, note=""):
    gbps = nbytes / us / 1e3 if nbytes and us else None
    return FloorRow(size, key, what, us, us and us * 0.98, us and us * 1.03, "device", nbytes, gbps,
                    nbytes / 9000 / 1e3 if nbytes else None, nbytes / 4000 / 1e3 if nbytes else None, verified, note)


def test_render_floor_has_every_row_and_reads_it():
    n = 1 << 20
    rows = [_row(n, f"busy_{op}", f"{op} busy", 1.55, op_bytes(op, n)) for op in ("add", "mul", "sub", "relu")]
    rows += [_row(n, "gap_inside", "gap inside", 0.96), _row(n, "gap_boundary", "boundary", 2.5),
             _row(n, "fused_warm", "fused, warm L2", 2.28, op_bytes("fused", n)),
             _row(n, "fused_cold", "fused, cold L2", 3.1, op_bytes("fused", n)),
             _row(n, "host_launch_c", "host: C cuLaunchKernel", 1.9), _row(n, "host_launch_adds", "adds", 0.4),
             _row(n, "host_graph_c", "host: C cuGraphLaunch", 2.3), _row(n, "host_graph_adds", "adds g", 0.5),
             FloorRow(1024, "fused_cold", "fused, cold L2", None, note="not measured: 8,534 sets")]
    roofs = {"l2_gbps": 9000.0, "dram_gbps": 4000.0, "l2_bytes": 50 * MIB, "l2_copy_bytes": 12 * MIB,
             "dram_copy_bytes": 256 * MIB}
    result = FloorResult(config={"sizes": [n, 1024], "ops": ["add", "mul", "sub", "relu"]}, rows=rows, roofs=roofs)
    text = render_floor(result)
    assert "L2 copy 9,000 GB/s" in text and "DRAM copy 4,000 GB/s" in text
    assert "fused 5,519 GB/s warm (L2) vs 4,059 GB/s cold" in text
    assert "C: 1.90 us, Python adds 0.40 us per launch" in text
    assert "not measured: 8,534 sets" in text
    assert result.verified and result.to_dict()["kind"] == "cugraphlab.study.floor.result"
    rows[0].verified = False
    assert not result.verified


def test_benchmark_script_parses_and_imports():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "studies" / "floor" / "run.py"
    spec = importlib.util.spec_from_file_location("floor_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # imports only; main() needs a GPU
    assert callable(mod.main)
