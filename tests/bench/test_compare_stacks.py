"""``compare`` across Python stacks without a GPU: records, rendering, files, stack modules, workers, bad input."""
from __future__ import annotations

import argparse
import importlib
import time

import pytest

from cugraphlab.bench.compare import compare, validate_compare
from cugraphlab.bench.compare.records import CompareResult, StackRow
from cugraphlab.bench.compare.registry import STACKS
from cugraphlab.bench.compare.way import StackUnavailable
from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.files import read_csv, read_json, write_csv, write_json
from cugraphlab.report.compare import leaderboard, render_baseline_rows, render_classic, render_compare

SIZES = (1 << 20, 1024)
# (stack, way, same cubin) -> µs (launch, eager, graph, fused) at 1,024 floats, roughly the H200's
FIGURES = {
    ("bindings", "cuLaunchKernel, args packed once", True): (4.71, 20.5, 4.74, None),
    ("cugraphlab", "Chain / Launch", True): (4.80, 20.6, 4.75, 0.90),
    ("cuda_core", "launch() with a prebuilt LaunchConfig", True): (5.41, 20.6, 4.80, None),
    ("torch", "ops with out=", False): (9.11, 39.0, 5.65, None),
    ("jax", "jit per op", False): (41.3, 180.0, None, None),
}


def synthetic(bad: int = 0) -> CompareResult:
    rows = []
    for rnd in (1, 2):
        for size in SIZES:
            scale = 1.0 if size == 1024 else 1.1
            for (stack, way, same), figs in FIGURES.items():
                for mode, us in zip(("launch", "eager", "graph", "fused"), figs):
                    if us is None:
                        rows.append(StackRow(stack, way, mode, size, rnd, status="unsupported", note="no graph API"
                                             if mode == "graph" else "n/a", same_cubin=same))
                        continue
                    us = us * scale * (1.0 + 0.01 * (rnd - 1))
                    dev = None if stack == "jax" else us * 0.8
                    rows.append(StackRow(stack, way, mode, size, rnd, count=5000, repeats=5, kernels=4, wall_us=us,
                                         wall_p5=us * 0.98, wall_p95=us * 1.03, device_us=dev, same_cubin=same,
                                         checked=5, mismatches=bad if stack == "torch" and mode == "graph" else 0,
                                         version="x 1.0"))
            rows.append(StackRow("numba", "-", "-", size, rnd, status="unavailable",
                                 note="import failed: numba needs numpy <= 2.4"))
    cfg = {"sizes": list(SIZES), "iters": 5000, "launches": 5000, "ops": ["add", "mul", "sub", "relu"],
           "scalar": 2.0, "repeats": 5, "rounds": 2, "device": 0, "seed": 7, "chain": "add -> mul 2 -> sub -> relu",
           "stacks": [s for s, _, _ in FIGURES] + ["numba"]}
    env = {"commit": "abc123def456", "packages": {"cuda-bindings": "13.3.1", "numpy": "2.5.2", "python": "3.12"}}
    return CompareResult(config=cfg, rows=rows, env=env, versions={"torch": {"torch": "2.11.0"}})


def test_leaderboard_ranks_by_launch_and_shows_round_spread():
    board = leaderboard(synthetic(), 1024)
    assert [r["stack"] for r in board][:3] == ["bindings", "cugraphlab", "cuda_core"]
    assert board[-1]["stack"] == "numba" and board[-1]["launch"] is None
    b = board[0]
    assert b["launch"] == pytest.approx(4.71 * 1.005)  # median over the two rounds
    assert b["rounds_spread_pct"] == pytest.approx(1.0, rel=1e-6)
    assert b["check"] == "bit-exact"


def test_render_compare_and_classic_text():
    text = render_compare(synthetic(bad=3))
    assert "size 1,024 floats" in text or "size 1K floats" in text or "1024" in text
    assert "bindings *" in text and "numba" in text and "numpy <= 2.4" in text
    assert "graph: 3 differ" in text
    assert "own fresh process" in text
    classic = render_classic(synthetic())
    assert "speedup" in classic and "jit per op" in classic
    base = render_baseline_rows(synthetic(), 1024)
    assert "torch" in base and "own process" in base


def test_ok_flag_follows_mismatches():
    assert synthetic().ok
    assert not synthetic(bad=1).ok


def test_json_and_csv_round_trip(tmp_path):
    result = synthetic()
    write_json(tmp_path / "c.json", result.to_dict())
    again = CompareResult.from_dict(read_json(tmp_path / "c.json"))
    assert again.rows == result.rows and again.config == result.config
    assert render_compare(again) == render_compare(result)
    write_csv(tmp_path / "c.csv", result.csv_rows())
    back = read_csv(tmp_path / "c.csv")
    assert len(back) == len(result.rows) and set(back[0]) >= {"stack", "way", "mode", "size", "round", "wall_us"}


def test_plot_writes_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib")
    from cugraphlab.report.plots.compare import plot_compare_stacks

    paths = plot_compare_stacks(synthetic(), tmp_path / "stacks")
    assert [p.suffix for p in paths] == [".png", ".svg"] and all(p.stat().st_size > 0 for p in paths)


@pytest.mark.parametrize("name", list(STACKS))
def test_every_stack_module_imports_and_explains_itself(name):
    """Importing a stack module imports no stack library; opening it here gives a clean reason, not a traceback."""
    module = importlib.import_module(STACKS[name].module)
    try:
        stack = module.open_stack(0, ("add", "mul", "sub", "relu"), STACKS[name].jobs[0][0])
    except StackUnavailable as e:
        assert str(e) and "Traceback" not in str(e)
    else:  # a machine with this stack and a GPU
        stack.close()


@pytest.mark.parametrize("name", list(STACKS))
def test_worker_function_gives_rows_for_a_missing_stack(name):
    from cugraphlab.bench.compare.worker import stack_job

    got = stack_job(name, STACKS[name].jobs[0][0], [1024], 10, 10, 1, 1, ["add", "mul", "sub", "relu"], 2.0, 1, 0, 1)
    assert got["rows"] and all(r["stack"] == name for r in got["rows"])
    if all(r["status"] == "unavailable" for r in got["rows"]):
        assert all(r["note"] for r in got["rows"])


def _raises(**kwargs):
    raise RuntimeError("the stack blew up")


def _hangs(**kwargs):
    time.sleep(600)


def _returns_rows(**kwargs):
    row = {"stack": kwargs["stack"], "way": "w", "mode": "launch", "size": kwargs["sizes"][0],
           "round": kwargs["round_index"], "status": "ok", "wall_us": 5.0, "mismatches": 0, "checked": 1}
    return {"rows": [row], "versions": {"fake": "1"}, "gpu": None}


def test_a_raising_worker_becomes_a_row_with_its_reason():
    result = compare([1024], 10, repeats=1, stacks="bindings", rounds=1, target=_raises, timeout_s=60)
    assert [r.status for r in result.rows] == ["failed"]
    assert "the stack blew up" in result.rows[0].note


def test_a_hanging_worker_times_out_into_a_row():
    t0 = time.monotonic()
    result = compare([1024, 2048], 10, repeats=1, stacks=["torch"], rounds=1, target=_hangs, timeout_s=1)
    assert time.monotonic() - t0 < 60
    assert [r.status for r in result.rows] == ["failed", "failed"]
    assert "timed out" in result.rows[0].note


def test_rounds_and_jobs_each_get_a_worker():
    result = compare([1024], 10, repeats=1, stacks="jax,bindings", rounds=2, target=_returns_rows, timeout_s=60)
    # jax has two jobs (default flags, command buffers), bindings one; two rounds
    assert len(result.rows) == 6 and result.rounds == [1, 2]
    assert result.versions and result.config["seed"] is not None


@pytest.mark.parametrize("kwargs", [dict(size=0), dict(size=[1024, 0]), dict(stacks="cupy,nope"), dict(iters=0),
                                    dict(rounds=0), dict(scalar=float("inf")), dict(ops="add,div"), dict(stacks="")])
def test_bad_input_is_one_invalid_argument_error_before_any_worker(kwargs):
    args = dict(size=1024, iters=10, repeats=1, stacks="bindings", rounds=1, target=_raises, timeout_s=5)
    args.update(kwargs)
    with pytest.raises(InvalidArgumentError):
        compare(**args)


def test_cli_parser_and_validation():
    from cugraphlab.cli.compare import add_commands

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_commands(sub, argparse.ArgumentParser(add_help=False))
    from cugraphlab.cli.compare import resolve_preset

    args = resolve_preset(parser.parse_args(["compare", "--size", "2^20,1024", "--stacks", "torch,jax", "--rounds",
                                             "3"]))
    assert args.size == [1 << 20, 1024] and args.stacks == "torch,jax" and args.rounds == 3
    cfg = validate_compare(size=args.size, iters=args.iters, ops=args.ops, repeats=args.repeats, device=args.device,
                           scalar=args.scalar, stacks=args.stacks, rounds=args.rounds, timeout_s=args.timeout)
    assert cfg["stacks"] == ["torch", "jax"] and cfg["launches"] == 5000
    with pytest.raises(SystemExit):
        parser.parse_args(["compare", "--size", "0"])
