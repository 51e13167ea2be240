"""The paired cuGraphExecUpdate table (``benchmarks/studies/exec_update/run.py``): one ExecUpdatePaired record in,
text out."""
from __future__ import annotations

from cugraphlab.report.env import versions_line
from cugraphlab.report.tables import format_table

__all__ = ["render_exec_update", "exec_update_reading", "GOAL_US"]

#: Issue 18's goal for one cuGraphExecUpdate from Python (µs).
GOAL_US = 0.5


def _spread(s) -> str:
    return "-" if s is None else f"{s.p5:.3f}-{s.p95:.3f}"


def _med(s) -> str:
    return "-" if s is None else f"{s.median:.3f}"


def render_exec_update(result) -> str:
    """Per case and way: µs per call (median, p5-p95), the paired difference to C, the clock and the check; then
    what the table says in sentences."""
    rows = []
    for r in result.rows:
        check = {True: "bit-exact", False: "FAILED", None: ""}[r.verified] or r.note[:60]
        rows.append([r.case, r.way, _med(r.us), _spread(r.us), _med(r.minus_c), _spread(r.minus_c),
                     r.us.clock if r.us is not None else "-", check])
    c = result.config
    head = (f"cuGraphExecUpdate, paired in one process: {c['chain']} ({c['kernel_nodes']} kernel nodes), "
            f"{c['k']} calls per block, {c['rounds']} rounds, ways and cases interleaved")
    table = format_table(["case", "way", "us/call", "p5-p95", "minus C", "p5-p95", "clock", "check"], rows,
                         align="llrrrrll")
    lines = [head, "", table, ""] + exec_update_reading(result)
    lines.append("clocks: " + "; ".join(f"{k} = {v}" for k, v in result.clocks.items()))
    if result.env:
        lines.append(versions_line(result.env))
    return "\n".join(lines)


def exec_update_reading(result) -> list[str]:
    """Sentences: per case C's cost and what each Python way adds; the driver's cost of copying parameters; the
    goal (<= 0.5 µs from Python) met or not by the cheapest Python way."""
    out = []
    by = {(r.case, r.way): r for r in result.rows if r.us is not None}
    cases = list(dict.fromkeys(r.case for r in result.rows))
    for case in cases:
        c = by.get((case, "C"))
        py = [r for (cs, w), r in by.items() if cs == case and w != "C" and w != "bindings, each call timed"]
        if not py:
            continue
        best = min(py, key=lambda r: r.us.median)
        parts = [f"{case}: "]
        parts.append(f"C {c.us.median:.3f} us; " if c is not None else "C not measured; ")
        adds = [f"{r.way} +{r.minus_c.median:.3f}" for r in py if r.minus_c is not None]
        if adds:
            parts.append("Python adds " + ", ".join(adds) + " us; ")
        met = "met" if best.us.median <= GOAL_US else "not met"
        parts.append(f"cheapest from Python {best.way} {best.us.median:.3f} us (goal <= {GOAL_US} us: {met}).")
        out.append("".join(parts))
    own, changed = by.get(("own graph", "C")), by.get(("changed parameters", "C"))
    if own is not None and changed is not None:
        out.append(f"The driver alone: copying new arguments into {result.config['kernel_nodes']} kernel nodes costs "
                   f"{changed.us.median - own.us.median:+.3f} us per update over updating from the executable's own "
                   f"graph ({changed.us.median:.3f} vs {own.us.median:.3f} us in C).")
    b, e = by.get(("changed parameters", "bindings")), by.get(("changed parameters", "bindings, each call timed"))
    if b is not None and e is not None:
        out.append(f"Timing each call alone (perf_counter_ns twice per call, as bench.graphs.update samples) reads "
                   f"{e.us.median - b.us.median:+.3f} us per call against the same calls timed as a block.")
    a, p = by.get(("changed parameters", "ctypes, argtypes")), by.get(("changed parameters", "ctypes, bound partial"))
    if a is not None and p is not None:
        out.append(f"ctypes as a bound partial: {p.us.median:.3f} us against {a.us.median:.3f} "
                   f"called from a loop body ({p.us.median - a.us.median:+.3f} us per call).")
    return out
