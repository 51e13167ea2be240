"""Floor 5, output: pure functions from result records to text, files and figures. Never opens a Device.

The shared base: tables (aligned text tables, number formats, the 'vs NumPy' cell), files (JSON/CSV, written
atomically), env (the versions line), plots/ (figures: one matplotlib loader, one module per family). Then one module
of text per command family, named as its ``cli/`` and ``bench/`` modules: run (run, info, compile), measure (latency,
timeline, sweep), graphs (graph, update, conditional), pdl, compare, scale.
"""

# Registers the matplotlib drawing of graph views (graphs.inspect.DRAWERS), so that a GraphView or Topology shows
# as a picture in a notebook once the report floor is imported; matplotlib itself loads only when a picture is drawn.
from .plots import graphs as _graph_drawing  # noqa: E402,F401
