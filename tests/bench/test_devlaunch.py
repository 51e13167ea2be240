"""bench.devlaunch without a GPU: the timeline and latency arithmetic on synthetic stamps, the record (kind, samples,
JSON), its rendering, and the command's parser."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from cugraphlab.bench.graphs.devlaunch import (
    DevlaunchResult,
    LatencyRow,
    LoopRow,
    SegmentRow,
    latency_rows,
    timeline_segments,
)
from cugraphlab.bench.stats.summary import summarize

ROOT = Path(__file__).resolve().parents[2]


def _self_slots(rows=5, chain=3000, call=800, gap=2500):
    s = np.zeros((rows + 2, 4), dtype=np.uint64)
    t = 10_000
    for r in range(rows):
        s[r, 0] = t
        s[r, 1] = t + chain
        s[r, 2] = t + chain + call
        t += chain + call + gap
    return s  # the last two rows were never stamped


def test_self_timeline_segments():
    seg = timeline_segments(_self_slots(), "self")
    assert np.allclose(seg["chain (+ marker kernel)"], 3.0)
    assert np.allclose(seg["decision + cudaGraphLaunch call"], 0.8)
    assert np.allclose(seg["relaunch: call returned -> next graph's first kernel"], 2.5)
    assert np.allclose(seg["iteration (start to start)"], 6.3)
    assert len(seg["iteration (start to start)"]) == 4  # 5 stamped rows: 4 whole iterations


def test_scheduler_timeline_segments():
    s = np.zeros((4, 4), dtype=np.uint64)
    for r, t in enumerate((1000, 8000, 15000)):
        s[r, 1], s[r, 2], s[r, 0] = t, t + 1000, t + 3000  # entry, after 2 launch calls, work starts
    seg = timeline_segments(s, "scheduler")
    assert np.allclose(seg["scheduler: decision + 2 cudaGraphLaunch calls"], 1.0)
    assert np.allclose(seg["tail launch -> work graph's first kernel"], 2.0)
    assert np.allclose(seg["work (+ marker) -> next scheduler start"], 4.0)
    assert np.allclose(seg["iteration (start to start)"], 7.0)
    assert timeline_segments(np.zeros((3, 4), dtype=np.uint64), "self") == {}


def test_latency_rows():
    fire = np.array([[0, 100, 600, 2100], [0, 5000, 5400, 7000], [0, 0, 0, 0]], dtype=np.uint64)
    host = np.array([[0, 0, 0, 1000], [0, 0, 0, 3500], [0, 0, 0, 6000]], dtype=np.uint64)
    own = np.array([[0, 100, 0, 0], [0, 5100, 0, 0]], dtype=np.uint64)
    out = latency_rows({"fire_and_forget": fire, "host": host, "self": own}, [2.5])
    assert np.allclose(out["fire_and_forget"], [2.0, 2.0]) and np.allclose(out["fire_and_forget call"], [0.5, 0.4])
    assert np.allclose(out["host"], [2.5, 2.5]) and np.allclose(out["self"], [5.0])
    assert list(out["host call"]) == [2.5]


def _result():
    s = summarize([5.0, 5.2, 5.1], unit="us", clock="device")
    u = summarize([3.5, 3.6, 3.55], unit="us", clock="device")
    r = DevlaunchResult(config={"sizes": [1024], "iterations": 1000, "repeats": 3, "unroll": 50,
                                "ops": ["add", "mul", "sub", "relu"], "scalar": 2.0},
                        env={"packages": {}, "commit": "abc"}, clocks={"device": "events", "wall": "host",
                                                                      "globaltimer": "gt"})
    r.loops = [LoopRow(1024, "device loop, self relaunch", "1 cuGraphLaunch", s, s, True, True, 0),
               LoopRow(1024, "unrolled graph x50", "20 launches", u, u, None, True, 0)]
    r.latency = [LatencyRow("device tail launch", "stamp -> start", summarize([2.0, 2.1], unit="us",
                                                                               clock="globaltimer"))]
    r.timeline = [SegmentRow(1024, "self", "chain (+ marker kernel)", summarize([3.0], unit="us",
                                                                                 clock="globaltimer"))]
    r.checks = [{"kind": "self loop", "ok": True, "text": "self loop: 1000 iteration(s)", "size": 1024}]
    r.keep_samples("1024 device loop, self relaunch device", [5.0, 5.2, 5.1], "us", "device")
    r.against_unrolled = {"gap_us": 1.5}
    r.notes = ["The device loop against the unrolled graph: +1.50 us."]
    return r


def test_record_shape_and_json(tmp_path):
    from cugraphlab.core.files import read_json, write_json

    r = _result()
    d = r.to_dict()
    assert d["kind"] == "cugraphlab.devlaunch" and d["schema"] == 1 and d["verified"] is True
    assert d["samples"]["1024 device loop, self relaunch device"]["values"] == [5.0, 5.2, 5.1]
    assert d["loops"][0]["device"]["median"] == pytest.approx(5.1)
    write_json(tmp_path / "r.json", r)
    back = read_json(tmp_path / "r.json")
    assert DevlaunchResult.check(back, "r.json")["loops"][1]["iterations_ok"] is None
    json.dumps(back, allow_nan=False)
    r.checks.append({"kind": "tail launch", "ok": False, "text": "tail launch: FAILED"})
    assert not r.verified


def test_render():
    from cugraphlab.report.devlaunch import render_devlaunch

    text = render_devlaunch(_result())
    for part in ("1,024 floats", "device loop, self relaunch", "5.10", "unrolled graph x50", "device tail launch",
                 "chain (+ marker kernel)", "ok   [1,024] self loop", "against the unrolled graph: +1.50 us"):
        assert part in text, part


def _cli():
    from cugraphlab.cli import devlaunch as mod

    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    mod.add_commands(sub, common)
    return p, mod


def test_parser():
    p, mod = _cli()
    a = p.parse_args(["devlaunch"])
    assert (a.size, a.iterations, a.repeats, a.device, a.seed, a.json) == (None, 1000, 10, 0, None, None)
    assert a.handler is mod.cmd_devlaunch
    a = p.parse_args(["devlaunch", "--size", "1024,2^20", "--iterations", "500", "--repeats", "3", "--device",
                      "1", "--seed", "7", "--json", "out.json", "--trace"])
    assert (a.size, a.iterations, a.repeats, a.device, a.seed, a.json, a.trace) == (
        [1024, 1 << 20], 500, 3, 1, 7, "out.json", True)
    for bad in (["--iterations", "0"], ["--device", "-1"], ["--size", "x"]):
        with pytest.raises(SystemExit):
            p.parse_args(["devlaunch", *bad])


def test_iterations_must_be_a_multiple_of_the_unroll():
    from cugraphlab.bench.graphs.devlaunch import measure_devlaunch
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="multiple of unroll"):
        measure_devlaunch(0, iters=1010)
