"""bench.devlaunch's folded rows without a GPU: the names ("decision every K iterations"), the folded timeline, the
conclusion on a synthetic record (the best loop deciding every iteration, and the decision every K apart),
the command's --unroll, and benchmarks/devlaunch.py's OUT (a folder or a .json file)."""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from cugraphlab.bench.graphs import devlaunch as bd
from cugraphlab.bench.stats.summary import summarize

ROOT = Path(__file__).resolve().parents[2]


def test_names():
    assert bd.every_name(50) == "device loop, self relaunch, decision every 50 iterations"
    assert bd.FOLDED in bd.PER_ITERATION_DECISION and bd.every_name(50) not in bd.PER_ITERATION_DECISION


def test_folded_timeline_is_read_like_the_self_loop():
    s = np.zeros((6, 4), dtype=np.uint64)
    for r, t in enumerate(range(10_000, 10_000 + 4 * 5000, 5000)):
        s[r, :3] = (t, t + 2500, t + 3500)
    seg = bd.timeline_segments(s, "folded")
    assert seg.keys() == bd.timeline_segments(s, "self").keys()
    assert np.allclose(seg["chain (+ marker kernel)"], 2.5) and np.allclose(seg["iteration (start to start)"], 5.0)
    assert np.allclose(seg["relaunch: call returned -> next graph's first kernel"], 1.5)


def _row(name, us, size=1024):
    s = summarize([us, us * 1.01, us * 0.99], unit="us", clock="device")
    return bd.LoopRow(size, name, "how", s, s, True, True, 0)


def _record(self_us=8.7, folded_us=7.2, every_us=3.9, unrolled_us=3.8):
    r = bd.DevlaunchResult(config={"sizes": [1024]}, env={}, clocks={})
    r.loops = [_row(bd.SELF, self_us), _row(bd.SCHED, 13.1), _row(bd.FOLDED, folded_us),
               _row(bd.every_name(50), every_us), _row("unrolled graph x50", unrolled_us)]
    g = summarize([2.0], unit="us", clock="globaltimer")
    r.timeline = [bd.SegmentRow(1024, "self, folded", "chain (+ marker kernel)", g)]
    return r


def test_conclusion_takes_the_best_per_iteration_loop_and_keeps_every_k_apart():
    r = _record()
    bd._conclude(r, [1024], 50)
    g = r.against_unrolled  # the record's synthetic medians read back exactly (no timing is compared here)
    assert g["device_loop"] == bd.FOLDED and g["device_loop_us"] == pytest.approx(7.2, abs=1e-9) and "met" not in g
    assert g["every_k_gap_us"] == pytest.approx(0.1, abs=1e-9) and g["every_k"] == 50 and "goal" not in r.to_dict()
    text = "\n".join(r.notes)
    assert "decision every 50 iterations" in text and "up to 49 iterations late" in text
    assert "2.00 us marker + add, mul, sub and relu" in text
    r = _record(self_us=4.0, folded_us=4.5, every_us=5.0)
    bd._conclude(r, [1024], 50)
    assert r.against_unrolled["device_loop"] == bd.SELF


def test_render_lists_the_new_rows():
    from cugraphlab.report.devlaunch import render_devlaunch

    r = _record()
    r.config = {"sizes": [1024], "ops": ["add", "mul", "sub", "relu"], "scalar": 2.0, "iterations": 1000,
                "repeats": 3}
    r.env = {"packages": {}, "commit": "abc"}
    bd._conclude(r, [1024], 50)
    text = render_devlaunch(r)
    assert bd.FOLDED in text and bd.every_name(50) in text and "self, folded" in text


def test_cli_unroll():
    from cugraphlab.cli.devlaunch import add_commands

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    add_commands(sub, argparse.ArgumentParser(add_help=False))
    assert p.parse_args(["devlaunch"]).unroll == 50
    assert p.parse_args(["devlaunch", "--unroll", "25", "--iterations", "500"]).unroll == 25


def _script():
    spec = importlib.util.spec_from_file_location("devlaunch_script_folded", ROOT / "benchmarks" / "devlaunch.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["devlaunch_script_folded"] = module
    spec.loader.exec_module(module)
    return module


def test_script_out_is_a_folder_or_a_json_file(tmp_path):
    s = _script()
    assert s.output_paths(str(tmp_path / "r.json")) == (str(tmp_path / "r.json"), None)
    rec, log = s.output_paths(str(tmp_path / "out"))
    assert (tmp_path / "out").is_dir() and rec.endswith("devlaunch.json") and log.endswith("devlaunch.log")
    (tmp_path / "d.json").mkdir()  # a folder named like a file is still a folder
    assert s.output_paths(str(tmp_path / "d.json"))[1] is not None


def test_script_launch_counts():
    s = _script()

    class C:
        def __init__(self, iterations, launches):
            self.iterations, self.launches = iterations, launches

    assert s._launches_ok(C(1000, 19), "folded", 50) and not s._launches_ok(C(1000, 999), "folded", 50)
    assert s._launches_ok(C(1000, 999), "folded") and s._launches_ok(C(3, 6), "scheduler")
