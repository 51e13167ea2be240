"""What ``cugraphlab compare`` and ``cugraphlab run --compare`` show: text built from a ``CompareResult``.

Works from the record alone (``CompareResult`` or ``CompareResult.from_dict`` of a saved JSON), so a result can be
rendered again on a machine with no GPU.
"""
from __future__ import annotations

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_compare", "render_baseline_rows", "render_classic", "classic_rows", "speedups"]

_HEADERS = ["library", "mode", "kernels/iter", "us/iter", "p5-p95", "device us/iter", "x cugraphlab eager",
            "vs NumPy", "note"]
_ALIGN = "llrrrrrll"


def _f(v, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _check_text(row) -> str:
    if not row.measured:
        return ""
    if row.verified:
        return "bit-exact"
    return f"FAILED ({row.mismatches:,} bad)" if row.mismatches is not None else "FAILED"


def _row_cells(row) -> list:
    band = "-" if row.p5 is None else f"{row.p5:.2f}-{row.p95:.2f}"
    ratio = "-" if row.ratio_vs_cugraphlab_eager is None else f"{row.ratio_vs_cugraphlab_eager:.2f}x"
    kernels = "" if row.kernels_per_iter is None else row.kernels_per_iter
    return [row.library, row.mode, kernels, _f(row.us_per_iter), band, _f(row.device_us_per_iter), ratio,
            _check_text(row), row.note]


def _table(rows) -> str:
    return format_table(_HEADERS, [_row_cells(r) for r in rows], align=_ALIGN)


def speedups(result, size: int) -> dict[str, float]:
    """Per library, eager time over graph time at ``size`` (wall clock), where both were measured."""
    out = {}
    for lib in dict.fromkeys(r.library for r in result.rows_for(size)):
        try:
            e, g = result.row(lib, "eager", size), result.row(lib, "graph", size)
        except KeyError:
            continue
        if e.measured and g.measured and g.us_per_iter > 0:
            out[lib] = e.us_per_iter / g.us_per_iter
    return out


def _copy_line(result) -> str | None:
    if result.copy_gbps is None:
        return None
    c = result.copy or {}
    g = c.get("gbps") or {}
    band = f" (p5-p95 {g['p5']:,.0f}-{g['p95']:,.0f})" if g.get("p5") is not None else ""
    size = f"{c['bytes'] / 2**20:,.0f} MiB copies, " if c.get("bytes") else ""
    return (f"device copy roof: {result.copy_gbps:,.0f} GB/s{band}, cuMemcpyDtoDAsync, {size}bytes read + written "
            f"over event time")


def _baselines_line(env: dict) -> str:
    b = env.get("baselines") or {}
    parts = []
    cp = b.get("cupy") or {}
    if cp.get("version"):
        parts.append(f"cupy {cp['version']}" + (f" (CUDA runtime {cp['cuda_runtime']})" if cp.get("cuda_runtime")
                                                 else ""))
    else:
        parts.append(f"cupy: {cp.get('note') or 'not run'}")
    t = b.get("torch") or {}
    if t.get("version"):
        parts.append(f"torch {t['version']}" + (f" (CUDA {t['cuda']})" if t.get("cuda") else ""))
    else:
        parts.append(f"torch: {t.get('note') or 'not run'}")
    return " | ".join(parts)


def _versions(result) -> list[str]:
    return [versions_line(result.env), _baselines_line(result.env)]


def _clock_notes(result) -> list[str]:
    c = result.config
    clocks = result.clocks or {}
    return [
        f"wall: {clocks.get('wall', '?')}; device: {clocks.get('device', '?')}.",
        (f"Medians of {c.get('repeats', '?')} repeats, the ways interleaved repeat by repeat; each repeat gives "
         f"every way the same fresh random inputs and poisons its outputs first. 'x cugraphlab eager' is the "
         f"wall time over cugraphlab eager's at the same size (below 1: faster)."),
        ("CuPy and PyTorch: one library call (one kernel) per op into preallocated outputs, relu as their stock "
         "maximum/clamp (bit-exact here: these inputs never make NaN or -0 before relu); graph: one iteration "
         "captured, one launch/replay per iteration."),
    ]


def render_compare(result) -> str:
    """One table per size with ratios, graph-over-eager speedups, the copy roof, versions and clocks."""
    c = result.config
    head = (f"cugraphlab compare: {c.get('chain', '?')} on float32, {fmt_count(c.get('iters', 0))} iterations x "
            f"{c.get('repeats', '?')} repeats, device {c.get('device', 0)}")
    out = [head]
    for size in result.sizes:
        out += ["", f"size {fmt_count(size)} floats", _table(result.rows_for(size))]
        sp = speedups(result, size)
        if sp:
            out.append("graph over eager: " + ", ".join(f"{lib} {v:.2f}x" for lib, v in sp.items()))
    out.append("")
    line = _copy_line(result)
    if line:
        out.append(line)
    out += _versions(result)
    out += _clock_notes(result)
    return "\n".join(out)


def render_baseline_rows(result, size: int | None = None) -> str:
    """The other libraries' rows at ``size`` (default: the first), for under the ``run`` table."""
    size = result.sizes[0] if size is None else size
    rows = [r for r in result.rows_for(size) if r.library != "cugraphlab"]
    try:
        base = result.row("cugraphlab", "eager", size)
        anchor = (f"cugraphlab eager measured in that pass: {_f(base.us_per_iter)} us/iter"
                  if base.measured else "cugraphlab eager was not measured in that pass")
    except KeyError:
        base, anchor = None, "cugraphlab eager was not part of that pass"
    head = (f"baselines at {fmt_count(size)} floats (a second pass with cugraphlab's ways interleaved, "
            f"{result.config.get('repeats', '?')} repeats; {anchor})")
    out = [head, "", _table(rows)]
    sp = {k: v for k, v in speedups(result, size).items() if k != "cugraphlab"}
    if sp:
        out.append("graph over eager: " + ", ".join(f"{lib} {v:.2f}x" for lib, v in sp.items()))
    line = _copy_line(result)
    if line:
        out.append(line)
    out.append(_baselines_line(result.env))
    return "\n".join(out)


def classic_rows(result) -> list[dict]:
    """The classic table as flat records: per library and size, eager and graph time and their ratio."""
    out = []
    for size in result.sizes:
        for lib in dict.fromkeys(r.library for r in result.rows_for(size)):
            try:
                e, g = result.row(lib, "eager", size), result.row(lib, "graph", size)
            except KeyError:
                continue
            speed = (e.us_per_iter / g.us_per_iter) if (e.measured and g.measured and g.us_per_iter) else None
            out.append({"library": lib, "size": size, "eager_us": e.us_per_iter, "graph_us": g.us_per_iter,
                        "speedup": speed, "eager_device_us": e.device_us_per_iter,
                        "graph_device_us": g.device_us_per_iter,
                        "verified": (e.verified and g.verified) if (e.measured and g.measured) else None,
                        "note": e.note or g.note})
    return out


def render_classic(result) -> str:
    """Libraries side by side: eager, graph and speedup at each size (wall clock medians, µs per iteration)."""
    sizes = result.sizes
    recs = classic_rows(result)
    libs = list(dict.fromkeys(r["library"] for r in recs))
    headers = ["library"]
    for s in sizes:
        headers += [f"eager @{fmt_count(s)}", f"graph @{fmt_count(s)}", "speedup"]
    headers.append("note")
    rows = []
    for lib in libs:
        cells, notes = [lib], []
        for s in sizes:
            r = next((x for x in recs if x["library"] == lib and x["size"] == s), None)
            if r is None:
                cells += ["-", "-", "-"]
                continue
            cells += [_f(r["eager_us"]), _f(r["graph_us"]),
                      "-" if r["speedup"] is None else f"{r['speedup']:.2f}x"]
            if r["verified"] is False:
                notes.append(f"NOT bit-exact @{fmt_count(s)}")
            if r["note"]:
                notes.append(r["note"])
        cells.append("; ".join(dict.fromkeys(notes)))
        rows.append(cells)
    table = format_table(headers, rows, align="l" + "rrr" * len(sizes) + "l")
    fused = []
    for s in sizes:
        try:
            f = result.row("cugraphlab", "fused", s)
        except KeyError:
            continue
        if f.measured:
            fused.append(f"{_f(f.us_per_iter)} us @{fmt_count(s)}")
    c = result.config
    lines = [f"classic table: {c.get('chain', '?')} on float32, {fmt_count(c.get('iters', 0))} iterations, "
             f"wall-clock us per iteration (median of {c.get('repeats', '?')})", "", table]
    if fused:
        lines.append("cugraphlab fused (the whole chain in one kernel, the floor): " + ", ".join(fused))
    return "\n".join(lines)
