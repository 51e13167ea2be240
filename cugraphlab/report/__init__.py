"""Floor 5, output: pure functions from result records to text, files and figures. Never opens a Device.

The shared base: tables (aligned text tables, number formats, the 'vs NumPy' cell), files (JSON/CSV, written
atomically), env (the versions line), plots/ (figures: one matplotlib loader, one module per family). Then one module
of text per command family, named as its ``cli/`` and ``bench/`` modules: run (run, info, compile), measure (latency,
timeline, sweep), graphs (graph, update, conditional), pdl, compare, scale.
"""
