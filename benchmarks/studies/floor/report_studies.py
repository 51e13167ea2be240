"""The floor studies (``benchmarks/studies/floor/run_studies.py``) and the floor's first-measured graph table as text:
a record in, text out."""
from __future__ import annotations

from cugraphlab.report.env import versions_line
from cugraphlab.report.tables import fmt_count, format_table
from studies.floor.report import floor_reading

__all__ = ["render_graph_table", "render_floor_studies", "render_section", "address_lines", "CHAIN_EFFECTIVE_GBPS"]

#: The chain kernels' effective read + write rates at 2^20 floats (docs/studies/floor.md §1, globaltimer busy time).
CHAIN_EFFECTIVE_GBPS = (5_350, 8_192)

_CHECK = {True: "bit-exact", False: "FAILED", None: "-"}


def _f(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def render_graph_table(result, position: int = 0) -> str:
    """The plain / PDL / PDL-early graph rows of ``studies.floor.first.measure_graph_table`` and what they say;
    ``position``: where the table ran in its process (0: first)."""
    rows = [[fmt_count(r.size), r.what, _f(r.us), "-" if r.p5 is None else f"{r.p5:.3f}-{r.p95:.3f}", r.clock or "-",
             _CHECK[r.verified] if r.us is not None else (r.note[:60] or "-")] for r in result.rows]
    where = "first in its process" if position == 0 else f"section {position + 1} of its process"
    head = f"graph table ({where}; rotated rounds, {result.config.get('rounds')} rounds):"
    table = format_table(["floats", "what", "us", "p5-p95", "clock", "check"], rows, align="llrrll")
    return "\n".join([head, table, ""] + floor_reading(result))


def address_lines(rows) -> list[str]:
    """One line per placement row: its median and each buffer's address with its offset inside a 2 MiB page."""
    out = []
    for r in rows:
        addrs, offs = r.extra.get("addresses"), r.extra.get("page_offsets")
        if not addrs:
            continue
        parts = [f"{k} {v} (+{offs[k]:#08x})" for k, v in addrs.items()]
        out.append(f"  chain {r.extra.get('chain')}: {r.median:.3f} us | " + ", ".join(parts))
    return out


def _table(rows, extra_cols=()) -> str:
    body = []
    for r in rows:
        cells = [fmt_count(r.size) if r.size else "-", r.what, _f(r.median), f"{_f(r.p5)}-{_f(r.p95)}", r.unit,
                 r.clock + (f" ({r.derived})" if r.derived else ""), _CHECK[r.verified]]
        cells += [_cell(r.extra.get(c)) for c in extra_cols]
        body.append(cells)
    return format_table(["size", "what", "median", "p5-p95", "unit", "clock", "check", *extra_cols], body)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 100 else f"{v:,.0f}"
    return str(v)


def render_section(result, section: str) -> str:
    """One study's table and its reading."""
    rows = result.section_rows(section)
    if not rows:
        return f"{section}: no rows"
    lines = [f"== {section} =="]
    if section == "placement":
        lines.append(_table(rows))
        for size, note in result.sections.get("placement", {}).items():
            sp = note["spread"]
            lines.append(f"{int(size):,} floats, {note['chains']} chains x {note['rounds']} rounds: medians "
                         f"{min(sp['medians']):.3f}-{max(sp['medians']):.3f} us; between chains {sp['between']:.3f} "
                         f"us against {sp['within']:.3f} us within one (p5-p95, median over chains; ratio "
                         f"{sp['ratio']:.2f}); slowest apart from fastest: {sp['separated']}")
            lines += address_lines([r for r in rows if r.size == int(size) and "chain" in r.extra])
    elif section == "fused_shapes":
        lines.append(_table(rows, ("grid", "float4_per_thread", "gbps", "of_roof", "meets_goal")))
        warm = [r for r in rows if r.key.startswith("warm_")]
        cold = [r for r in rows if r.key.startswith("cold_")]
        if warm:
            best = min(warm, key=lambda r: r.median)
            lines.append(f"best warm: {best.what}: {best.median:.3f} us (goal <= 2.1 us: "
                         f"{'met' if best.extra.get('meets_goal') else 'not met'})")
        if cold:
            best = min(cold, key=lambda r: r.median)
            roof = best.extra.get("of_roof")
            lines.append(f"best cold: {best.what}: {best.median:.3f} us, {best.extra['gbps']:,.0f} GB/s" +
                         (f" = {roof:.0%} of the DRAM copy roof ({best.extra['at_roof_us']:.2f} us at it)"
                          if roof else ""))
    elif section == "l2_read":
        lines.append(_table(rows, ("reps", "us_per_launch")))
        lo, hi = CHAIN_EFFECTIVE_GBPS
        for mib, b in result.sections.get("l2_read", {}).get("best", {}).items():
            lines.append(f"{mib} MiB: best {b['gbps']:,.0f} GB/s ({b['row']}); the chain's kernels read "
                         f"{lo:,}-{hi:,} GB/s effective = {lo / b['gbps']:.0%}-{hi / b['gbps']:.0%} of it")
    else:
        lines.append(_table(rows, ("grid",) if section == "gap_grid" else ()))
    return "\n".join(lines)


def render_floor_studies(result) -> str:
    """Every study's section in the order they ran, the seconds each took, and the environment line."""
    order = result.config.get("sections", [])
    seconds = result.config.get("seconds", {})
    parts = [render_section(result, s) for s in order]
    roofs = result.sections.get("roofs")
    if roofs:
        parts.insert(0, f"roofs: DRAM copy {roofs['dram_gbps']:,.0f} GB/s ({roofs['dram_bytes'] / 2**20:.0f} MiB "
                        f"copies), L2 copy {roofs['l2_gbps']:,.0f} GB/s ({roofs['l2_copy_bytes'] / 2**20:.0f} MiB); "
                        f"L2 {roofs['l2_bytes'] / 2**20:.0f} MiB")
    parts.append("seconds per section: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    parts.append("clocks: device = cuEventElapsedTime around the loop / iterations; globaltimer = %globaltimer "
                 "stamps in the kernels (stamped builds, not the timed ones); derived rows say their arithmetic.")
    if result.env:
        parts.append(versions_line(result.env))
    parts.append("all checks passed" if result.verified else "A CHECK FAILED")
    return "\n\n".join(parts)
