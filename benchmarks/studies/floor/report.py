"""The floor table (``benchmarks/studies/floor/run.py``, README "floor"): one FloorResult in, text out."""
from __future__ import annotations

from cugraphlab.report.env import versions_line
from cugraphlab.report.tables import fmt_count, format_table

__all__ = ["render_floor", "floor_reading"]


def _f(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def render_floor(result) -> str:
    """Per size: busy time per kernel, gaps, graph boundary, graph and fused per iteration, host cost per launch
    (Python vs C); bytes moved, GB/s and the time the same bytes take at the L2 and DRAM copy roofs."""
    r = result.roofs
    rows = []
    for row in result.rows:
        checked = {True: "bit-exact", False: "FAILED", None: ""}[row.verified]
        spread = "-" if row.p5 is None else f"{row.p5:.2f}-{row.p95:.2f}"
        rows.append([fmt_count(row.size), row.what, _f(row.us), spread,
                     "-" if row.nbytes is None else f"{row.nbytes / 2**20:.3g} MiB",
                     "-" if row.gbps is None else f"{row.gbps:,.0f}", _f(row.at_l2_us), _f(row.at_dram_us),
                     row.clock or "-", checked or (row.note[:60] if row.note else "")])
    table = format_table(["floats", "what", "us", "p5-p95", "bytes", "GB/s", "at L2 roof us", "at DRAM roof us",
                          "clock", "check"], rows, align="llrrrrrrll")
    head = (f"cugraphlab floor: {' -> '.join(result.config['ops'])}; roofs: L2 copy {r['l2_gbps']:,.0f} GB/s "
            f"({r['l2_copy_bytes'] / 2**20:.0f} MiB copies), DRAM copy {r['dram_gbps']:,.0f} GB/s "
            f"({r['dram_copy_bytes'] / 2**20:.0f} MiB copies); L2 {r['l2_bytes'] / 2**20:.0f} MiB")
    lines = [head, "", table, ""] + floor_reading(result)
    lines.append("clocks: globaltimer = %globaltimer stamps in the kernels; device = cuEventElapsedTime around the "
                 "loop; host_call = perf_counter_ns around K calls / K; C clock = CLOCK_MONOTONIC inside the C loop.")
    if result.env:
        lines.append(versions_line(result.env))
    return "\n".join(lines)


def floor_reading(result) -> list[str]:
    """What the table says, in sentences (only where the rows exist)."""
    out = []
    for n in result.config["sizes"]:
        by = {row.key: row for row in result.rows if row.size == n}
        busy = [row for k, row in by.items() if k.startswith("busy_") and row.us is not None]
        if busy and "gap_inside" in by:
            total = sum(row.us for row in busy) + by["gap_inside"].us * (len(busy) - 1)
            dram = sum(row.at_dram_us or 0 for row in busy)
            out.append(f"{n:,} floats: kernels busy {min(r.us for r in busy):.2f}-{max(r.us for r in busy):.2f} us "
                       f"each, {by['gap_inside'].us:.2f} us apart inside a graph: {total:.2f} us of device time per "
                       f"iteration, against {dram:.2f} us for the same bytes at the DRAM roof.")
        if by.get("fused_warm") and by["fused_warm"].gbps and by.get("fused_cold") and by["fused_cold"].gbps:
            out.append(f"{n:,} floats: fused {by['fused_warm'].gbps:,.0f} GB/s warm (L2) vs "
                       f"{by['fused_cold'].gbps:,.0f} GB/s cold (DRAM roof {result.roofs['dram_gbps']:,.0f}).")
        out += _pdl_reading(n, by)
        if by.get("host_launch_c") and by["host_launch_c"].us is not None and by.get("host_launch_adds"):
            out.append(f"{n:,} floats: C: {by['host_launch_c'].us:.2f} us, Python adds "
                       f"{by['host_launch_adds'].us:.2f} us per launch; cuGraphLaunch C {by['host_graph_c'].us:.2f}, "
                       f"Python adds {by['host_graph_adds'].us:.2f} us.")
    return out


def _us(row) -> str:
    return "-" if row is None or row.us is None else f"{row.us:.2f}"


def _pdl_reading(n: int, by: dict) -> list[str]:
    """The PDL sentences of one size: plain, PDL and PDL early graphs per iteration with the saving per
    programmatic edge; the same for graphs of several iterations where those rows exist."""
    out = []
    suffixes = [""] + sorted({k[len("graph"):-len("_iter")] for k in by if k.startswith("graph_x") and k.endswith("_iter")})
    for suffix in suffixes:
        plain = by.get("graph_iter" if not suffix else f"graph{suffix}_iter")
        late, early = by.get(f"pdl_graph{suffix}_iter"), by.get(f"pdl_early_graph{suffix}_iter")
        if plain is None or (late is None and early is None):
            continue
        if late is not None and late.us is None:
            out.append(f"{n:,} floats: PDL {late.note or 'not measured'}.")
            continue
        shape = "one graph per iteration" if not suffix else f"{suffix[2:]} iterations per graph"
        parts = [f"{n:,} floats, {shape}: plain {_us(plain)} us/iter"]
        for label, row, key in (("PDL", late, "pdl"), ("PDL early", early, "pdl_early")):
            if row is None or row.us is None:
                continue
            saving = by.get(f"{key}_saving{suffix}")
            parts.append(f"{label} {_us(row)}" + (f" (saves {saving.us:.3f} us per programmatic edge)"
                                                  if saving is not None and saving.us is not None else ""))
        out.append(", ".join(parts) + " (device clock).")
    return out
