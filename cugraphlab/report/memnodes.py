"""What ``cugraphlab memnodes`` shows, built from its record (bench.graphs.memnodes.MemnodesResult): per size the first
launches, the steady state of each shape against the preallocated chain (and the 2% goal, judged on the best shape),
the footprint step by step with cuMemGetInfo's free memory, the reuse checks; then the unfreed-allocation lesson.
Pure: a record in, text out."""
from __future__ import annotations

from ..bench.graphs.memnodes import AMORTIZE, MEM_AMORTIZED_ROW, PRE_AMORTIZED_ROW, PRE_ROW
from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_memnodes", "render_footprint", "fmt_bytes"]


def fmt_bytes(n: int) -> str:
    """"8.0 MiB", "4.0 KiB", "0 B"."""
    n = int(n)
    if abs(n) >= 1 << 20:
        return f"{n / 2**20:.1f} MiB"
    if abs(n) >= 1 << 10:
        return f"{n / 2**10:.1f} KiB"
    return f"{n} B"


def _status(mismatches: int) -> str:
    return "bit-exact" if mismatches == 0 else f"FAILED ({fmt_count(mismatches)} bad)"


def _yes(ok) -> str:
    return "yes" if ok else "NO"


def render_footprint(steps) -> str:
    """The footprint table: one row per step, the four attributes and how much less device memory is free
    (cuMemGetInfo) than at the first step."""
    first = getattr(steps[0], "free_bytes", 0) if steps else 0
    rows = [[s.step, fmt_bytes(s.used_current), fmt_bytes(s.used_high), fmt_bytes(s.reserved_current),
             fmt_bytes(s.reserved_high), fmt_bytes(first - getattr(s, "free_bytes", 0))] for s in steps]
    return format_table(["step", "used", "used high", "reserved", "reserved high", "less free than at start"],
                        rows, align="lrrrrr")


def _footprint_verdict(c: dict) -> str:
    if not c:
        return ""
    before = ("" if c.get("used_before_trim") is None else
              f"after cuGraphExecDestroy the pool still held {fmt_bytes(c['used_before_trim'])} used, "
              f"{fmt_bytes(c['reserved_before_trim'])} reserved ({fmt_bytes(c['free_missing_before_trim'])} less "
              "free); ")
    return (f"{before}after cuDeviceGraphMemTrim: used {fmt_bytes(c['used_after_trim'])}, reserved "
            f"{fmt_bytes(c['reserved_after_trim'])} above the start, free memory "
            f"{fmt_bytes(c['free_missing_after_trim'])} below it (allowed {fmt_bytes(c['free_slack'])}): "
            f"back at the start: {_yes(c['ok'])}")


def _size_block(s, iters: int, repeats: int) -> list[str]:
    out = [f"--- {s.size:,} floats: {fmt_bytes(s.graph_bytes)} of intermediates allocated in the graph ---", ""]
    rows = [[f.name, f"{f.host_api_us.median:.1f}", f"{f.host_api_us.p5:.1f}-{f.host_api_us.p95:.1f}",
             f"{f.complete_us.median:.1f}", f"{f.complete_us.p5:.1f}-{f.complete_us.p95:.1f}",
             _status(f.mismatches)] for f in s.first]
    out += ["First launch of a fresh executable (the driver maps the graph's memory here):",
            format_table(["first launch", "cuGraphLaunch us", "p5-p95", "until complete us", "p5-p95", "vs NumPy"],
                         rows, align="lrrrrl"), ""]
    by_name = {t.name: t for t in s.steady}
    rows = []
    for t in s.steady:
        # each memory-node row against the preallocated chain with as many iterations per graph
        pre = by_name.get(PRE_AMORTIZED_ROW if t.name == MEM_AMORTIZED_ROW else PRE_ROW)
        vs = (f"{(t.device_us_per_iter.median / pre.device_us_per_iter.median - 1) * 100:+.1f}%"
              if pre is not None and t is not pre and t.name != PRE_AMORTIZED_ROW else "")
        rows.append([t.name, f"{t.device_us_per_iter.median:.2f}",
                     f"{t.device_us_per_iter.p5:.2f}-{t.device_us_per_iter.p95:.2f}", vs,
                     f"{t.wall_us_per_iter.median:.2f}", _status(t.mismatches)])
    out += [f"Repeat launches ({fmt_count(iters)} per loop x {repeats} loops, all interleaved on one stream):",
            format_table(["steady state", "device us/iter", "p5-p95", "vs prealloc", "wall us/iter", "vs NumPy"],
                         rows, align="lrrrrl"),
            (f"best shape {s.best_shape}: {s.overhead_pct:+.2f}% device, {s.wall_overhead_pct:+.2f}% wall vs the "
             f"preallocated chain")]
    cost = getattr(s, "per_launch_cost_us", None) or {}
    if cost:
        lo, hi = min(cost.values()), max(cost.values())
        out.append(f"the memory nodes add {lo:.2f}-{hi:.2f} us of device time per graph launch whatever the shape "
                   "(one alloc or three): a cost per launch, not per node")
    amort = getattr(s, "amortized_overhead_pct", None)
    if amort is not None:
        out.append(f"{AMORTIZE} iterations per graph (one alloc, one free) against the preallocated chain unrolled "
                   f"alike: {amort:+.2f}% device")
    out.append("")
    out += ["Footprint (cuDeviceGetGraphMemAttribute; free memory from cuMemGetInfo) after each step:",
            render_footprint(s.footprint)]
    verdict = _footprint_verdict(getattr(s, "footprint_check", {}))
    out += [verdict, ""] if verdict else [""]
    r, rc, p = s.address_reuse, s.address_reuse_captured, s.physical
    out += [
        f"explicit and captured graphs: {'same topology' if s.topology_same else s.topology_diff}; captured runs "
        f"(line, block) {_status(s.captured_mismatches)}",
        f"virtual-address reuse inside the line graph: {r['text']} (as expected: {_yes(r['ok'])}); captured: "
        f"{rc['text']}",
    ]
    for shape, sr in getattr(s, "shape_reuse", {}).items():
        if shape != "line":
            out.append(f"addresses in the {shape} graph (all live together, none may be shared): {sr['text']} "
                       f"(as expected: {_yes(sr['ok'])})")
    out += [f"physical memory shared by two graphs on one stream: {p['text']} (as expected: {_yes(p['ok'])})", ""]
    return out


def render_memnodes(result) -> str:
    """The whole report of a MemnodesResult (or anything of its shape)."""
    c = result.config
    head = (f"cugraphlab memnodes: {c['chain']}; sizes {', '.join(f'{n:,}' for n in c['sizes'])} floats; "
            f"{c['first_samples']} fresh executables per first-launch row")
    lines = [head, ""]
    for s in result.sizes:
        lines += _size_block(s, c["iters"], c["repeats"])
    u = result.unfreed
    lines.append("An allocation the graph does not free (alloc + memset nodes, no free node):")
    lines += [("  ok   " if st["ok"] else "  FAIL ") + st["text"] for st in u.get("steps", [])]
    lines.append("")
    lines.append("The views of the graphs (alloc nodes with size and address):")
    if result.sizes:
        views = getattr(result.sizes[0], "shape_views", {}) or {"line": result.sizes[0].view}
        for text in views.values():
            lines += [text, ""]
    lines += [
        "",
        versions_line(result.env),
        (f"cuGraphLaunch us: {result.clocks.get('host_api', 'host')}; until complete: perf_counter_ns from "
         f"before cuGraphLaunch to cuStreamSynchronize's return; wall us/iter: "
         f"{result.clocks.get('wall', 'host wall clock')}; device us/iter: {result.clocks.get('device', 'events')}."),
        "Medians, p5-p95 across samples; fresh random inputs and a poisoned output before every checked run.",
        f"Verified: {'yes' if result.verified else 'NO'} (every output bit-exact against NumPy float32).",
    ]
    return "\n".join(lines)
