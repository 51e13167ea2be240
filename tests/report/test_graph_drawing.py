"""The matplotlib drawing of graph views (no Graphviz, no GPU): PNG/SVG files from synthetic views, the notebook
reprs through graphs.inspect.DRAWERS, and graph --draw's parser."""
from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from cugraphlab.graphs.inspect import DRAWERS, GraphView, NodeInfo, Topology, drawing, register_drawer

pytest.importorskip("matplotlib")

PDL_VIEW = GraphView(
    (NodeInfo("MEMSET"), NodeInfo("KERNEL:add", "grid 4096, block 256"), NodeInfo("KERNEL:mul", "grid 4096, block 256"),
     NodeInfo("EVENT_RECORD"), NodeInfo("CONDITIONAL"), NodeInfo("KERNEL:relu")),
    ((0, 1), (0, 2), (1, 3), (2, 4), (3, 5), (4, 5)),
    (0, 0, 0, 0, 1, 0),
)


def test_draw_graph_writes_png_and_svg_from_a_synthetic_view(tmp_path):
    from cugraphlab.report.plots.graphs import draw_graph

    written = draw_graph(PDL_VIEW, tmp_path / "g", title="synthetic")
    assert [p.name for p in written] == ["g.png", "g.svg"]
    assert written[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = written[1].read_text()
    for text in ("add", "mul", "relu", "programmatic", "conditional"):
        assert text in svg, text


def test_draw_graph_returns_a_figure_without_out_and_takes_a_topology():
    from cugraphlab.report.plots import pyplot
    from cugraphlab.report.plots.graphs import draw_graph

    fig = draw_graph(Topology(("KERNEL:add", "KERNEL:mul"), ((0, 1),)))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "[0] add" in texts and "[1] mul" in texts
    pyplot().close(fig)


def test_layout_rows_are_dependency_depths():
    from cugraphlab.report.plots.graphs import layout

    pos = layout(PDL_VIEW)
    assert [pos[i][1] for i in range(6)] == [0, -1, -1, -2, -2, -3]
    assert pos[1][0] != pos[2][0]  # parallel branches side by side


def test_only_programmatic_edges_are_dashed():
    from matplotlib.patches import FancyArrowPatch

    from cugraphlab.report.plots import pyplot
    from cugraphlab.report.plots.graphs import draw_graph

    fig = draw_graph(PDL_VIEW)
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    dashed = [a for a in arrows if a.get_linestyle() not in ("-", "solid")]
    assert len(arrows) == 6 and len(dashed) == 1
    pyplot().close(fig)


def test_reprs_use_the_registered_drawer():
    import cugraphlab.report  # noqa: F401  registers the matplotlib drawing

    assert "matplotlib" in DRAWERS
    svg = PDL_VIEW._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert PDL_VIEW._repr_png_()[:4] == b"\x89PNG"
    html = Topology(("KERNEL:add",), ())._repr_html_()
    assert "<svg" in html and "[0] KERNEL:add" in html


def test_without_a_drawer_the_rich_reprs_are_none(monkeypatch):
    monkeypatch.setattr("cugraphlab.graphs.inspect.DRAWERS", {})
    assert PDL_VIEW._repr_svg_() is None and PDL_VIEW._repr_png_() is None
    assert drawing(PDL_VIEW, "png") is None
    assert PDL_VIEW._repr_html_().startswith("<pre>6 nodes, 6 edges")


def test_the_newest_drawer_wins(monkeypatch):
    monkeypatch.setattr("cugraphlab.graphs.inspect.DRAWERS", {})
    register_drawer("a", lambda v, fmt: "A")
    register_drawer("b", lambda v, fmt: "B")
    assert PDL_VIEW.to_svg() == "B"
    with pytest.raises(ValueError):
        drawing(PDL_VIEW, "jpg")


def test_the_graph_floor_does_not_load_the_report_floor():
    code = ("import sys, cugraphlab.graphs.inspect as i; v = i.GraphView((), ()); v._repr_svg_(); "
            "print(sorted(m for m in sys.modules if m.startswith('cugraphlab.report')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_graph_draw_option_parses():
    from cugraphlab.cli.graphs import add_commands

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    common = argparse.ArgumentParser(add_help=False)
    add_commands(sub, common)
    args = p.parse_args(["graph", "--mode", "explicit", "--draw", "out/g"])
    assert args.draw == "out/g" and args.handler.__name__ == "cmd_graph"


def test_graph_draw_without_matplotlib_is_one_line_before_the_gpu(monkeypatch, tmp_path, capsys):
    from cugraphlab.cli import main

    monkeypatch.setattr("cugraphlab.report.plots.matplotlib_missing", lambda: True)

    def no_gpu(*a, **k):
        raise AssertionError("the GPU was touched")

    monkeypatch.setattr("cugraphlab.experiment.graph_report.inspect_chain_graph", no_gpu)
    assert main(["graph", "--mode", "capture", "--size", "1024", "--draw", str(tmp_path / "g")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("cugraphlab graph: --draw needs matplotlib: pip install matplotlib (or drop "
                                 "--draw)\n")


def test_graph_draw_writes_the_drawing_of_the_reports_view(monkeypatch, tmp_path, capsys):
    from cugraphlab.cli import graphs
    from cugraphlab.experiment.graph_report import GraphReport

    report = GraphReport("explicit", "title", PDL_VIEW, ["note"], None, True)
    monkeypatch.setattr("cugraphlab.experiment.graph_report.inspect_chain_graph", lambda *a, **k: report)
    args = argparse.Namespace(ops="add,mul,sub,relu", draw=str(tmp_path / "g"), mode="explicit", size=1024,
                              device=0, unroll=1, dot=None)
    assert graphs.cmd_graph(args) == 0
    assert (tmp_path / "g.png").exists() and (tmp_path / "g.svg").exists()
    assert "drawing written to" in capsys.readouterr().out
