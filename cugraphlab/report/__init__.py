"""Floor 5, output: pure functions from result records to text, files and figures. Never opens a Device.

The shared base: tables (aligned text tables, number formats, the 'vs NumPy' cell; files, JSON/CSV written by what
the path is, are core.files, below every floor that writes one), env (the versions line), plots/ (figures: one matplotlib loader, one module per family), plain (any
JSON record shown plainly). Then one module of text per command family, named as its ``cli/`` and ``bench/``
modules: run (run, info, compile), measure (latency, timeline, sweep), graphs (graph, update, conditional), nodes,
memnodes, switch, pdl, devlaunch, doctor, compare, scale, scaling, diff; and show, which picks the family's text
for any saved record::

    from cugraphlab.report import render_record, plot_record
    print(render_record(cugraphlab.load_record("run.json")))    # what `cugraphlab run` printed

Names load on first use (``render_record`` imports report.show, which imports each family's text as a record
needs it).
"""
from __future__ import annotations

from .._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "show": ("render_record", "plot_record", "has_plot", "read_shown"),
    "plain": ("render_plain",),
    "plots": ("PlotUnavailableError", "matplotlib_missing"),
    "run": ("render_run", "render_info", "render_compile"),
    "measure": ("render_latency", "render_timeline", "render_sweep", "plot_timeline_files", "plot_sweep_files"),
    "graphs": ("render_graph", "render_update", "render_conditional"),
    "nodes": ("render_nodes",),
    "memnodes": ("render_memnodes",),
    "switch": ("render_switch",),
    "pdl": ("render_pdl",),
    "devlaunch": ("render_devlaunch",),
    "doctor": ("render_doctor", "render_session"),
    "compare": ("render_compare", "render_classic", "render_baseline_rows"),
    "scale": ("render_scale",),
    "scaling": ("render_scaling", "plot_scaling"),
    "diff": ("render_diff", "plot_diff"),
    "paired": ("render_paired",),
})

# Registers the matplotlib drawing of graph views (graphs.inspect.DRAWERS), so that a GraphView or Topology shows
# as a picture in a notebook once the report floor is imported; matplotlib itself loads only when a picture is drawn.
from .plots import graphs as _graph_drawing  # noqa: E402,F401
