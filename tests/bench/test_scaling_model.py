"""Graph launch against NVIDIA's model (bench.scaling.model): the fit of both straight-line launch series, the launch
path read from the slope, and the words of the verdict, on fake series at 1, 7 and 200 ns per node (no GPU)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cugraphlab.bench.scaling.analysis import analyze
from cugraphlab.bench.scaling.model import (
    MODEL_SERIES,
    driver_path,
    fit_against_model,
    launch_model,
    model_growth,
    model_us,
)
from cugraphlab.report.scaling import render_scaling
from scaling_records import synthetic_record

NODES = [1 << i for i in range(13)]  # 1 .. 4096, as the default sweep


def _series(intercept_us: float, slope_ns: float, seed: int, rel: float = 0.01, n: int = 15):
    """Raw samples per point: the line a + b * nodes with relative noise (fresh random each call)."""
    rng = np.random.default_rng(seed)
    return [list((intercept_us + slope_ns * 1e-3 * x) * (1 + rel * rng.standard_normal(n))) for x in NODES]


def _model(intercept_us: float, slope_ns: float, seed: int, version: int | None = 13000) -> dict:
    s = {cost: (NODES, _series(intercept_us, slope_ns, seed + i)) for i, cost in enumerate(MODEL_SERIES)}
    return launch_model(s, {"cuda": "13.0" if version and version >= 13000 else "12.4", "version_int": version})


def test_the_model_itself_grows_about_164_percent_over_4_to_4096_nodes():
    assert model_us("12.6+", 4096) == pytest.approx(2.5 + 4.096)
    assert model_us("pre-12.6", 4) == pytest.approx(2.8)
    assert model_growth("12.6+", 4, 4096) == pytest.approx(6.596 / 2.504 - 1)  # +163%: no failed claim
    assert model_growth("pre-12.6", 4, 4096) > 250


@pytest.mark.parametrize("slope_ns,path,words", [
    (1.0, "12.6+", "on the CUDA 12.6+ straight-line path"),
    (200.0, "pre-12.6", "on the pre-12.6 path"),
    (7.0, "between", "between the two paths"),
])
def test_fit_and_path_of_fake_series(slope_ns, path, words):
    seed = int(slope_ns * 10)
    m = _model(2.5, slope_ns, seed)
    assert m["path"] == path
    for cost in MODEL_SERIES:  # both series fitted, with intervals that hold the true line
        e = m["series"][cost]
        f = e["fit"]
        assert e["nodes_range"] == [4, 4096] and e["points"] == 11  # 4..4096: the model's range
        assert f["slope_ci"][0] <= slope_ns * 1e-3 <= f["slope_ci"][1]
        assert f["intercept_ci"][0] <= 2.5 <= f["intercept_ci"][1]
        assert f["slope"] == pytest.approx(slope_ns * 1e-3, rel=0.1)
        assert e["path"]["path"] == path and words in e["path"]["text"]
        assert e["growth"] == pytest.approx((2.5 + slope_ns * 4.096) / (2.5 + slope_ns * 0.004) - 1, rel=0.05)
    assert words.split(" (")[0].replace("on the ", "") in m["text"]
    assert "failed" not in m["text"].lower() and "not met" not in m["text"].lower()


def test_between_gives_the_figure_and_the_nearer_path():
    p = driver_path(0.007, (0.0065, 0.0075))
    assert p["path"] == "between" and p["nearer"] == "12.6+"
    assert "7.0 ns per node [6.5, 7.5]" in p["text"] and "7x the 12.6+ figure" in p["text"]
    assert "1/29 of the pre-12.6" in p["text"] and "nearer the 12.6+ path" in p["text"]
    assert p["short"] == "between the two paths, nearer the 12.6+ one (7.0 ns per node)"
    far = driver_path(0.05)  # 50 ns: still between, now nearer the pre-12.6 path (log scale)
    assert far["path"] == "between" and far["nearer"] == "pre-12.6"
    assert driver_path(-0.0002)["path"] == "12.6+"  # no measurable per-node cost: the constant-time path
    assert driver_path(None)["path"] is None and "no verdict" in driver_path(float("nan"))["text"]
    # on a path, but the interval reaches out of it: said
    assert "its interval reaches outside" in driver_path(0.0025, (0.001, 0.006))["text"]
    assert "interval" not in driver_path(0.001, (0.0008, 0.0012))["text"]


def test_the_verdict_names_the_driver_version():
    between = _model(2.5, 7.0, 3)
    assert between["driver"]["by_version"] == "12.6+"
    assert "by the repeat launch into an idle stream (API), the driver is between the two paths" in between["text"]
    assert "has the 12.6+ path, and the measured slope is above NVIDIA's figure" in between["text"]
    old = _model(2.0, 200.0, 4, version=12040)
    assert old["driver"]["by_version"] == "pre-12.6" and "as its version (CUDA 12.4) predicts" in old["text"]
    on = _model(2.5, 1.0, 5)
    assert "above NVIDIA's figure" not in on["text"] and "12.6+ straight-line path" in on["text"]
    unknown = _model(2.5, 1.0, 6, version=None)
    assert unknown["driver"]["by_version"] is None and unknown["path"] == "12.6+"


def test_the_held_series_rules_when_the_repeat_launch_is_missing_and_no_series_gives_no_verdict():
    held = launch_model({"held_launch_us": (NODES, _series(1.9, 200.0, 8))}, None)
    assert held["path"] == "pre-12.6" and held["text"].startswith("by the cuGraphLaunch with the stream held")
    none = launch_model({}, None)
    assert none["path"] is None and none["text"].startswith("no verdict")
    few = fit_against_model([1, 2, 4], [2.0, 2.0, 2.0])
    assert few["points"] == 1 and few["path"]["path"] is None and "fewer than two" in few["text"]


def test_analyze_and_the_report_read_the_line_against_the_model():
    r = synthetic_record(launch=lambda n: 2.5 + 0.007 * n)
    r.env["driver"] = {"release": "580.1", "cuda": "13.0", "version_int": 13000}
    analyze(r)
    assert r.launch_model["path"] == "between"
    assert set(r.launch_model["series"]) == set(MODEL_SERIES)
    text = render_scaling(r)
    for needle in ("graph launch against NVIDIA's model", "about 2.5 µs + about 1 ns per node",
                   "about 2 µs + 200 ns per node", "a = 2.50 [", "b = 7.00 [", "ns/node",
                   "repeat launch (API), path: between the two paths: 7.0 ns per node", "the 12.6+ model 6.60 µs there (+163%)",
                   "driver: CUDA 13.0 (12.6 or later by its version)", "verdict: by the repeat launch",
                   "growth over the sweep (a description"):
        assert needle in text, needle
    assert "constant-time launch (CUDA 12.6 claim" not in text
    # the record read back as JSON reads the same
    d = json.loads(json.dumps(r.to_dict()))
    assert d["launch_model"]["path"] == "between"
    assert render_scaling(d).splitlines()[1:] == text.splitlines()[1:]


def test_a_one_ns_line_is_on_the_12_6_path_in_the_report():
    r = synthetic_record(launch=lambda n: 2.5 + 0.001 * n)
    analyze(r)
    text = render_scaling(r)
    assert "cuGraphLaunch, device held, path: on the CUDA 12.6+ straight-line path: 1.0 ns per node" in text
    assert "verdict: by the repeat launch into an idle stream (API), the driver is on the CUDA 12.6+" in text


def test_a_record_written_before_the_model_is_read_against_it_when_shown():
    r = synthetic_record(launch=lambda n: 2.5 + 0.007 * n)
    analyze(r)
    d = json.loads(json.dumps(r.to_dict()))
    del d["launch_model"]  # as the records committed before it was kept
    text = render_scaling(d)
    assert "path: between the two paths: 7.0 ns per node" in text and "verdict: by the repeat launch" in text
