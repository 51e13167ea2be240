"""What ``measure`` (your own work: ``measure_work``), ``latency``, ``timeline`` and ``sweep`` print and draw."""
from __future__ import annotations

from .env import versions_line
from .measure_work import render_measure
from .tables import fmt_count, format_table

__all__ = ["render_measure", "render_latency", "native_lines", "render_timeline", "render_sweep", "plot_timeline_files",
           "plot_sweep_files", "timeline_figures", "sweep_figures"]


def render_latency(result) -> str:
    rows = []
    for r in result.rows:
        s = r.us
        if s is None:  # a row that could not be measured (no C compiler): the reason instead of figures
            rows.append([r.what, "-", "-", 0, getattr(r, "note", "") or "not measured", "-"])
            continue
        rows.append([r.what, f"{s.median:.3f}", f"{s.p5:.3f}-{s.p95:.3f}", s.n, s.stop_reason,
                     "device" if ("cuEvent" in s.clock or "globaltimer" in s.clock) else "host"])
    table = format_table(["what", "us (median)", "p5-p95", "samples", "stopped by", "clock"], rows,
                         align="lrrrll")
    d = result.decomposition
    share = (f"one empty-kernel launch from Python: {d['total_us']:.2f} us = Python loop {d['python_us']:.2f} "
             f"+ binding {d['binding_us']:.2f} + driver {d['driver_us']:.2f}")
    r = {row.key: row.us.median for row in result.rows if row.us is not None}
    reading = []
    native = native_lines(d)

    if "gap_eager" in r and "gap_graph (all)" in r:
        reading.append(f"On the device, chain kernels fed one by one from Python sit {r['gap_eager']:.2f} us apart; "
                       f"inside a graph {r['gap_graph (all)']:.2f} us (next start - previous end, %globaltimer).")
    if "probe_gap_graph (all)" in r:
        reading.append(f"Empty kernels (nothing to drain): {r['probe_gap_eager']:.2f} us apart from Python, "
                       f"{r['probe_gap_graph (all)']:.2f} us inside a graph: the device's own kernel-to-kernel cost.")
    if "e2e_eager" in r and "e2e_graph" in r:
        reading.append(f"End to end: {r['e2e_eager']:.2f} us per kernel eager, {r['e2e_graph']:.2f} us in a graph "
                       f"({result.config['size']:,} floats).")
    c = result.config
    clocks = f"clocks: host = {c['host_clock']}; end to end = {c['device_clock']}; gaps = {c['gap_clock']}."
    return "\n".join(["cugraphlab latency", "", table, "", share, *native, *reading, clocks,
                      versions_line(result.env)])


def native_lines(decomposition: dict) -> list[str]:
    """"C: X us, Python adds Y us per launch" for cuLaunchKernel and cuGraphLaunch, or why there is no C row."""
    d = decomposition
    out = []
    for call, c_key, add_key in (("cuLaunchKernel", "c_launch_us", "python_adds_launch_us"),
                                 ("cuGraphLaunch", "c_graph_launch_us", "python_adds_graph_us")):
        c, add = d.get(c_key), d.get(add_key)
        if c is not None and add is not None:
            out.append(f"{call}: C: {c:.2f} us, Python adds {add:.2f} us per launch "
                       "(same function/graph, stream and context; paired, C timed in C).")
    if not out and d.get("native_note"):
        out.append(f"native floor: not measured ({d['native_note']}).")
    return out


def render_timeline(result, written=()) -> str:
    rows = []
    for m in result.modes:
        rows.append([m.mode, len(m.events), f"{m.kernel_us.median:.2f}", f"{m.gap_us.median:.2f}",
                     f"{m.gap_us.p5:.2f}-{m.gap_us.p95:.2f}", f"{m.gap_us.max:.2f}", f"{m.span_us:.1f}",
                     "bit-exact" if m.verified else "FAILED"])
    table = format_table(["mode", "kernels", "kernel us", "gap us", "gap p5-p95", "gap max", "span us",
                          "vs NumPy"], rows, align="lrrrrrrl")
    lines = [f"cugraphlab timeline: {result.config['chain']}, {result.config['iters']} iterations", "", table, "",
             f"clock: {result.clock}; gap = next kernel's first block start - this kernel's last block end."]
    if written:
        lines.append("figures: " + ", ".join(str(p) for p in written))
    if result.env:
        lines.append(versions_line(result.env))
    return "\n".join(lines)


def plot_timeline_files(result, stem=None) -> list:
    """The timeline and gap-histogram figures of a ``bench.measure.timeline`` record: written to ``STEM_timeline`` and
    ``STEM_gaps`` (.png, .svg; returns the paths), or, with ``stem=None``, the two matplotlib Figures (inline in a
    notebook)."""
    from .plots.measure import plot_gap_histogram, plot_timeline

    rec = result.plot_record()
    if stem is None:
        return [plot_timeline(rec, None), plot_gap_histogram(rec, None)]
    return plot_timeline(rec, f"{stem}_timeline") + plot_gap_histogram(rec, f"{stem}_gaps")


def timeline_figures(result) -> list:
    """The timeline and gap-histogram Figures of a timeline record (``plot_timeline_files(result, None)``)."""
    return plot_timeline_files(result, None)


def render_sweep(result, written=()) -> str:
    from ..bench.measure.break_even import break_even_size

    rows = []
    for r in result.rows:
        checked = {True: "bit-exact", False: "FAILED", None: "not checked"}[r["verified"]]
        rows.append([r["mode"], fmt_count(r["size"]), r["chain_len"], f"{r['us_per_iter']:.2f}",
                     f"{r['us_per_kernel']:.3f}", f"{r['gbps']:.0f}", checked])
    table = format_table(["mode", "size", "kernels", "us/iter", "us/kernel", "GB/s", "vs NumPy"], rows,
                         align="lrrrrrl")
    lines = ["cugraphlab sweep", "", table, "",
             f"device copy bandwidth (the roof): {result.copy_gbps:.0f} GB/s (bytes read + written)"]
    for length in result.config["lengths"]:
        be = break_even_size(result.rows, a="graph", b="eager", chain_len=length)
        near = break_even_size(result.rows, a="graph", b="eager", chain_len=length, rel_tol=0.05)
        if be is not None:
            lines.append(f"chain of {length}: graph and eager cross at about {be:,.0f} floats")
        elif near is not None:
            lines.append(f"chain of {length}: the graph saves under 5% from about {near:,.0f} floats on "
                         "(they never cross: launch cost just stops mattering)")
        else:
            lines.append(f"chain of {length}: the graph is more than 5% faster at every size measured")
    lines.append(f"clock: {result.config['clock']}; {result.config['bytes_rule']}.")
    if written:
        lines.append("figures: " + ", ".join(str(p) for p in written))
    if result.env:
        lines.append(versions_line(result.env))
    return "\n".join(lines)


def plot_sweep_files(result, stem=None) -> list:
    """The size, chain-length and bandwidth figures of a sweep record: written to ``STEM_size``, ``STEM_chain``,
    ``STEM_bandwidth`` (.png, .svg; returns the paths), or, with ``stem=None``, the three Figures."""
    from .plots.measure import plot_bandwidth, plot_sweep_chain, plot_sweep_size

    length = 4 if 4 in result.config["lengths"] else result.config["lengths"][0]
    if stem is None:
        return [plot_sweep_size(result.rows, None, chain_len=length), plot_sweep_chain(result.rows, None),
                plot_bandwidth(result.rows, None, copy_gbps=result.copy_gbps, chain_len=length)]
    files = plot_sweep_size(result.rows, f"{stem}_size", chain_len=length)
    files += plot_sweep_chain(result.rows, f"{stem}_chain")
    files += plot_bandwidth(result.rows, f"{stem}_bandwidth", copy_gbps=result.copy_gbps, chain_len=length)
    return files


def sweep_figures(result) -> list:
    """The three sweep Figures of a sweep record (``plot_sweep_files(result, None)``)."""
    return plot_sweep_files(result, None)
