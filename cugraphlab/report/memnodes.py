"""What ``cugraphlab memnodes`` shows, built from its record (bench.memnodes.MemnodesResult): per size the first
launches, the steady state against the preallocated chain (and the 2% goal), the footprint step by step, the reuse
checks; then the unfreed-allocation lesson. Pure: a record in, text out."""
from __future__ import annotations

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
    """The footprint table: one row per step, the four attributes."""
    rows = [[s.step, fmt_bytes(s.used_current), fmt_bytes(s.used_high), fmt_bytes(s.reserved_current),
             fmt_bytes(s.reserved_high)] for s in steps]
    return format_table(["step", "used", "used high", "reserved", "reserved high"], rows, align="lrrrr")


def _size_block(s, goal_pct: float, iters: int, repeats: int) -> list[str]:
    out = [f"--- {s.size:,} floats: {fmt_bytes(s.graph_bytes)} of intermediates allocated in the graph ---", ""]
    rows = [[f.name, f"{f.host_api_us.median:.1f}", f"{f.host_api_us.p5:.1f}-{f.host_api_us.p95:.1f}",
             f"{f.complete_us.median:.1f}", f"{f.complete_us.p5:.1f}-{f.complete_us.p95:.1f}",
             _status(f.mismatches)] for f in s.first]
    out += ["First launch of a fresh executable (the driver maps the graph's memory here):",
            format_table(["first launch", "cuGraphLaunch us", "p5-p95", "until complete us", "p5-p95", "vs NumPy"],
                         rows, align="lrrrrl"), ""]
    rows = [[t.name, f"{t.device_us_per_iter.median:.2f}",
             f"{t.device_us_per_iter.p5:.2f}-{t.device_us_per_iter.p95:.2f}", f"{t.wall_us_per_iter.median:.2f}",
             _status(t.mismatches)] for t in s.steady]
    verdict = "met" if s.goal_met else "NOT met"
    out += [f"Repeat launches ({fmt_count(iters)} per loop x {repeats} loops, interleaved):",
            format_table(["steady state", "device us/iter", "p5-p95", "wall us/iter", "vs NumPy"], rows,
                         align="lrrrl"),
            (f"memory nodes vs preallocated: {s.overhead_pct:+.2f}% device, {s.wall_overhead_pct:+.2f}% wall; "
             f"goal within {goal_pct:g}% (device): {verdict}"), ""]
    out += ["Footprint (cuDeviceGetGraphMemAttribute) after each step:", render_footprint(s.footprint), ""]
    r, rc, p = s.address_reuse, s.address_reuse_captured, s.physical
    out += [
        f"explicit and captured graphs: {'same topology' if s.topology_same else s.topology_diff}; captured run "
        f"{_status(s.captured_mismatches)}",
        f"virtual-address reuse inside the graph: {r['text']} (as expected: {_yes(r['ok'])}); captured: "
        f"{rc['text']}",
        f"physical memory shared by two graphs on one stream: {p['text']} (as expected: {_yes(p['ok'])})",
        "",
    ]
    return out


def render_memnodes(result) -> str:
    """The whole report of a MemnodesResult (or anything of its shape)."""
    c = result.config
    head = (f"cugraphlab memnodes: {c['chain']}; sizes {', '.join(f'{n:,}' for n in c['sizes'])} floats; "
            f"{c['first_samples']} fresh executables per first-launch row")
    lines = [head, ""]
    for s in result.sizes:
        lines += _size_block(s, result.goal_pct, c["iters"], c["repeats"])
    u = result.unfreed
    lines.append("An allocation the graph does not free (alloc + memset nodes, no free node):")
    lines += [("  ok   " if st["ok"] else "  FAIL ") + st["text"] for st in u.get("steps", [])]
    lines.append("")
    lines.append("The view of the graph (alloc nodes with size and address):")
    if result.sizes:
        lines.append(result.sizes[0].view)
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
