"""What ``cugraphlab devlaunch`` shows, built from a ``bench.graphs.devlaunch.DevlaunchResult`` (pure: no device)."""
from __future__ import annotations

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_devlaunch"]


def _status(ok: bool, mismatches: int) -> str:
    return "bit-exact" if ok else f"FAILED ({mismatches} bad)"


def _count(ok) -> str:
    return "-" if ok is None else ("yes" if ok else "NO")


def render_devlaunch(result) -> str:
    """The loop table per size, the latency table, the per-iteration timeline, the checks and the notes."""
    c = result.config
    head = (f"cugraphlab devlaunch: {' -> '.join(c['ops'])} (mul {c['scalar']:g}), loops of "
            f"{fmt_count(c['iterations'])} iterations x {c['repeats']} repeats")
    out = [head]
    for size in c["sizes"]:
        rows = []
        for r in (r for r in result.loops if r.size == size):
            rows.append([r.name, f"{r.device.median:.2f}", f"{r.device.p5:.2f}-{r.device.p95:.2f}",
                         f"{r.wall.median:.2f}", r.how, _count(r.iterations_ok), _status(r.verified, r.mismatches)])
        out += ["", f"{fmt_count(size)} floats, us per iteration:",
                format_table(["loop", "device", "p5-p95", "wall", "driven by", "count ok", "vs NumPy"], rows,
                             align="lrrrlll")]
    if result.latency:
        rows = [[r.name, f"{r.us.median:.2f}", f"{r.us.p5:.2f}-{r.us.p95:.2f}", r.us.n, r.how]
                for r in result.latency]
        out += ["", "Launch latency, us (%globaltimer unless marked host):",
                format_table(["launch", "median", "p5-p95", "n", "measured"], rows, align="lrrrl")]
    if result.timeline:
        rows = [[fmt_count(r.size), r.loop, r.segment, f"{r.us.median:.2f}", f"{r.us.p5:.2f}-{r.us.p95:.2f}"]
                for r in result.timeline]
        out += ["", "Where an iteration goes (stamped loops, %globaltimer, us):",
                format_table(["floats", "loop", "segment", "median", "p5-p95"], rows, align="rllrr")]
    checks = [("ok   " if ch["ok"] else "FAIL ") + (f"[{fmt_count(ch['size'])}] " if "size" in ch else "")
              + ch["text"] for ch in result.checks]
    out += ["", "Checks (fresh inputs, poisoned outputs; counts from the GPU):", *checks]
    clocks = result.clocks
    out += ["", versions_line(result.env),
            f"device: {clocks.get('device', '')}; wall: {clocks.get('wall', '')}.",
            f"globaltimer: {clocks.get('globaltimer', '')}.", *result.notes]
    return "\n".join(out)
