"""Floor 5, output: pure functions from result records to text, files and figures. Never opens a Device.

tables (aligned text tables, number formats), files (JSON/CSV, written atomically), env (the versions line), plots
(matplotlib, imported lazily), and one module of text per family of commands: run (run, info, compile), measure
(latency, timeline, sweep), graphs (graph, update), pdl (pdl, conditional), compare.
"""
