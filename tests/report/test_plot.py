"""Tests for cugraphlab.report.plots (CPU only, needs matplotlib)."""

from __future__ import annotations

import math
import struct
import sys

import pytest

from cugraphlab.core.errors import InvalidArgumentError

pytest.importorskip("matplotlib")

from cugraphlab.report.plots.measure import (  # noqa: E402
    PlotUnavailableError,
    break_even_size,
    plot_bandwidth,
    plot_gap_histogram,
    plot_sweep_chain,
    plot_sweep_size,
    plot_timeline,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SIZES = [2 ** k for k in range(10, 25, 2)]


def _timeline():
    modes = {}
    for mode, gap_ns in (("eager", 4000), ("graph", 900)):
        events, t = [], 1_000_000 if mode == "eager" else 5_000_000
        for i in range(12):
            kernel = ("scale", "add", "reduce")[i % 3]
            dur = 2000 + 500 * (i % 3)
            # Vary gaps so the histogram has spread (and spans >10x for eager).
            g = gap_ns * (1 + (i % 4)) if mode == "graph" else gap_ns * (1 + 10 * (i % 2))
            events.append({"kernel": kernel, "start_ns": t, "end_ns": t + dur})
            t += dur + g
        modes[mode] = events
    return {"title": "synthetic chain of 12", "modes": modes}


def _model_us(mode, size, chain_len):
    # graph: low fixed cost, slightly slower per element (crosses eager at 2**16)
    per_elem = {"eager": 1e-4, "graph": 2e-4}[mode]
    fixed = {"eager": 9.0, "graph": 2.45}[mode]
    return chain_len * (fixed + per_elem * size)


def _sweep_rows(modes=("eager", "graph"), chain_lens=(1, 8)):
    rows = []
    for c in chain_lens:
        for mode in modes:
            for s in SIZES:
                us = _model_us(mode, s, c)
                rows.append({"mode": mode, "size": s, "chain_len": c, "us_per_iter": us,
                             "p5": us * 0.95, "p95": us * 1.1,
                             "gbps": 3 * 4 * s * c / (us * 1e3)})
    return rows


def _assert_outputs(paths, tmp_path, stem):
    assert [p.name for p in paths] == [f"{stem}.png", f"{stem}.svg"]
    png, svg = paths
    assert png.parent == tmp_path
    data = png.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 5000
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and len(text) > 5000


def test_plot_timeline(tmp_path):
    paths = plot_timeline(_timeline(), tmp_path / "timeline")
    _assert_outputs(paths, tmp_path, "timeline")
    svg = paths[1].read_text(encoding="utf-8")
    # 150 dpi of an 11-inch-wide figure: the PNG header must say > 1000 px.
    width, height = struct.unpack(">II", paths[0].read_bytes()[16:24])
    assert width > 1000 and height > 200
    assert svg.count("<path") > 10


def test_plot_gap_histogram(tmp_path):
    paths = plot_gap_histogram(_timeline(), tmp_path / "gaps.v1")
    _assert_outputs(paths, tmp_path, "gaps.v1")  # dots in the stem survive


def test_plot_gap_histogram_without_gaps(tmp_path):
    tl = {"title": "one kernel", "modes": {"eager": [{"kernel": "k", "start_ns": 0, "end_ns": 10}]}}
    paths = plot_gap_histogram(tl, tmp_path / "nogaps")
    assert paths[0].read_bytes().startswith(PNG_MAGIC)


def test_plot_sweep_size(tmp_path):
    paths = plot_sweep_size(_sweep_rows(), tmp_path / "size")
    _assert_outputs(paths, tmp_path, "size")


def test_plot_sweep_size_no_crossing_and_explicit_chain(tmp_path):
    rows = [r for r in _sweep_rows() if r["mode"] == "eager"]
    rows += [dict(r, mode="graph", us_per_iter=r["us_per_iter"] / 2, p5=r["p5"] / 2,
                  p95=r["p95"] / 2) for r in rows]
    paths = plot_sweep_size(rows, tmp_path / "size_nocross", chain_len=8)
    _assert_outputs(paths, tmp_path, "size_nocross")


def test_plot_sweep_chain(tmp_path):
    rows = _sweep_rows(chain_lens=(1, 2, 4, 16, 64, 256))
    paths = plot_sweep_chain(rows, tmp_path / "chain")
    _assert_outputs(paths, tmp_path, "chain")
    paths = plot_sweep_chain(rows, tmp_path / "chain_big", size=SIZES[-1])
    _assert_outputs(paths, tmp_path, "chain_big")


def test_plot_bandwidth(tmp_path):
    paths = plot_bandwidth(_sweep_rows(), tmp_path / "bw", copy_gbps=3900.0)
    _assert_outputs(paths, tmp_path, "bw")


def test_missing_matplotlib_raises_helpful_error(monkeypatch, tmp_path):
    # A None entry in sys.modules makes "import matplotlib" raise ImportError.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PlotUnavailableError, match="pip install matplotlib") as info:
        plot_timeline(_timeline(), tmp_path / "never")
    assert isinstance(info.value, InvalidArgumentError)  # one line, exit 2 in the CLI
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------- break-even

def test_break_even_matches_analytic_crossing():
    # 9 + 1e-4 s == 2.45 + 2e-4 s  ->  s = 65500; only sizes 2**10..2**24
    # are sampled, so this checks the log-log interpolation too.
    exact = (9.0 - 2.45) / (2e-4 - 1e-4)
    be = break_even_size(_sweep_rows())
    assert be is not None
    assert be == pytest.approx(exact, rel=0.01)


def test_break_even_power_law_exact():
    # Straight lines in log-log space cross exactly where interpolation says.
    rows = []
    for s in (10, 100, 1000, 10000):
        rows.append({"mode": "graph", "size": s, "chain_len": 1, "us_per_iter": 2.0 * s ** 0.5})
        rows.append({"mode": "eager", "size": s, "chain_len": 1, "us_per_iter": 0.2 * s ** 0.75})
    # 2 s^0.5 = 0.2 s^0.75 -> s^0.25 = 10 -> s = 1e4 (a measured point: exact tie)
    assert break_even_size(rows) == pytest.approx(1e4, rel=1e-9)
    rows = [r for r in rows if r["size"] != 10000] + [
        {"mode": "graph", "size": 1e5, "chain_len": 1, "us_per_iter": 2.0 * 1e5 ** 0.5},
        {"mode": "eager", "size": 1e5, "chain_len": 1, "us_per_iter": 0.2 * 1e5 ** 0.75},
    ]
    assert break_even_size(rows) == pytest.approx(1e4, rel=1e-6)


def test_break_even_none_without_crossing():
    rows = [r for r in _sweep_rows() if r["mode"] == "eager"]
    rows += [dict(r, mode="graph", us_per_iter=r["us_per_iter"] * 0.5) for r in rows]
    assert break_even_size(rows) is None
    assert break_even_size([]) is None
    assert break_even_size([r for r in rows if r["mode"] == "graph"]) is None


def test_break_even_respects_chain_len_and_modes():
    rows = _sweep_rows(chain_lens=(1, 8))
    # chain_len only scales both curves, so the crossing size is the same...
    be1 = break_even_size(rows)
    be8 = break_even_size(rows, chain_len=8)
    assert be1 is not None and be8 is not None
    assert be8 == pytest.approx(be1, rel=1e-9)
    # ...but an absent chain length has no data.
    assert break_even_size(rows, chain_len=3) is None
    # Swapping a/b finds the same crossing.
    assert break_even_size(rows, a="eager", b="graph") == pytest.approx(be1)
    assert not math.isnan(be1)
