"""What ``cugraphlab measure FILE`` prints: the ways side by side, what a graph costs and saves, the SM clock, how
the sampling went, and, for a capture that failed, the doctor's diagnosis."""
from __future__ import annotations

from typing import Any

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_measure", "render_measure_table", "graph_line", "diagnosis_lines", "clock_lines"]


def _cell(s) -> str:
    return "-" if s is None else f"{s.median:.3f}" if s.median < 100 else f"{s.median:,.1f}"


def _interval(w, clock: str = "wall") -> str:
    iv = (w.intervals or {}).get(clock)
    if not iv:
        return "-"
    return f"[{iv['lo']:.3f}, {iv['hi']:.3f}]" if iv["hi"] < 100 else f"[{iv['lo']:,.1f}, {iv['hi']:,.1f}]"


def _gpu_cell(w, clock: str) -> str:
    s = getattr(w, clock, None)
    if s is None:
        return "n/a" if getattr(w, "gpu_note", "") else "-"
    return _cell(s)


def render_measure_table(result) -> str:
    """The ways, one row each: held and cold (the GPU's own time per call), host, wall (with its interval) and
    device µs per call, the check, what it is. A record without held and cold figures (made before they existed,
    or with gpu_clocks=False) prints without their columns."""
    gpu = any(getattr(w, c, None) is not None for w in result.ways for c in ("held", "cold")) or \
        any(getattr(w, "gpu_note", "") for w in result.ways)
    rows = []
    for w in result.ways:
        if not w.measured:
            note = w.note if len(w.note) < 70 else w.note[:67] + "..."
            rows.append([w.way, *(["-", "-"] if gpu else []), "-", "-", "-", "-", "-", w.check or "", note])
            continue
        rel = getattr(w, "relative", None)
        held = [_gpu_cell(w, "held"), _gpu_cell(w, "cold")] if gpu else []
        rows.append([w.way, *held, _cell(w.host), _cell(w.wall), _interval(w), _cell(w.device),
                     "-" if rel is None else f"{rel.median:.3f}", w.check or "", w.what])
    heads = (["held us/call", "cold us/call"] if gpu else []) + ["host us/call", "wall us/call", "[95%] wall",
                                                                 "device us/call", "x ref", "check", "what"]
    return format_table(["way", *heads], rows, align="l" + "r" * (len(heads) - 2) + "ll")


def clock_lines(result) -> list[str]:
    """Which figure answers which question, and every way whose held and cold figures could not be taken."""
    out = []
    if any(getattr(w, "held", None) is not None for w in result.ways):
        ks = sorted({w.held_calls for w in result.ways if getattr(w, "held_calls", None)})
        k = f"{ks[0]}" if len(ks) == 1 else f"{ks[0]}-{ks[-1]}" if ks else "K"
        out.append(f"How long does my work run on the GPU? held ({k} calls queued behind a kernel holding the stream, "
                   "CUDA events around them, per call: no host gap inside); cold for a first touch (one call after "
                   "an L2 flush, queued behind the hold).")
    out.append("What does a call cost my thread? host. wall: until the GPU is done; device: CUDA events around the "
               "calls as the host makes them (the host's pace when a call is shorter than making it).")
    for w in result.ways:
        if getattr(w, "gpu_note", ""):
            out.append(f"{w.way}: held: {w.gpu_note}; cold: n/a.")
    return out


def graph_line(result) -> str | None:
    """Capture + instantiate + upload, and after how many calls the graph pays off."""
    c = result.graph_costs
    if "instantiate_us" not in c:
        return None
    parts = []
    if "capture_us" in c:
        parts.append(f"capture {c['capture_us']['median']:.1f} us")
    parts.append(f"instantiate {c['instantiate_us']['median']:.1f} us")
    if "upload_us" in c:
        parts.append(f"upload {c['upload_us']['median']:.1f} us")
    nodes = c.get("nodes")
    head = f"graph ({nodes} node{'s' if nodes != 1 else ''})" if nodes is not None else "graph"
    text = f"{head}: {' + '.join(parts)} = {c['setup_us']:.1f} us once"
    be = result.break_even
    if be.get("calls") is not None:
        text += (f"; a replay saves {be['saved_us']:.2f} us per call (wall), so it pays off after "
                 f"{fmt_count(be['calls'])} calls")
    elif be.get("reason"):
        text += f"; {be['reason']}"
    return text + "."


def diagnosis_lines(result) -> list[str]:
    """The doctor's diagnosis of every way whose capture failed: each finding, why, and the fix."""
    out = []
    for w in result.ways:
        d = w.diagnosis
        if not d:
            continue
        out.append(f"{w.way}: the capture failed (capture doctor, {d.get('mode', '?')} mode, ended "
                   f"{d.get('end_result', '?')}):")
        findings = d.get("findings") or []
        if not findings:
            out.append(f"  {w.note}")
        for i, f in enumerate(findings, 1):
            call = f"{f.get('call')}({f.get('args', '')})" if f.get("seen", True) else "a call outside cugraphlab"
            out.append(f"  [{i}] {f.get('title')}: {call} -> {f.get('result') or '?'} at {f.get('where') or '?'}")
            if f.get("detail"):
                out.append(f"      {f['detail']}")
            out.append(f"      why: {f.get('why', '')}")
            out.append(f"      fix: {f.get('fix', '')}")
    return out


def _sm_line(sm: dict) -> str:
    if not sm.get("rounds"):
        return f"SM clock: {sm.get('note') or 'not read'}."
    rated = f", rated {sm['rated_mhz']:,.0f}" if sm.get("rated_mhz") else ""
    low = sm.get("low_rounds", 0)
    flag = (f"; {low} round{'s' if low != 1 else ''} below {sm['low_fraction']:.0%} of the rated clock: the GPU "
            f"was throttled or idle-clocked there" if low else "")
    return (f"SM clock: {sm['median_mhz']:,.0f} MHz median ({sm['min_mhz']:,.0f}-{sm['max_mhz']:,.0f}) over "
            f"{sm['rounds']} rounds{rated}{flag}.")


def _sampling_line(result) -> str:
    first = next((w.wall for w in result.ways if w.wall is not None), None)
    n = first.n if first is not None else 0
    procs = f" in {result.processes} processes (intervals: the process is the unit)" if result.processes > 1 else ""
    cfg = result.config or {}
    l2 = f", {cfg['l2']} L2" if "l2" in cfg else ""  # a record of before the cold clock
    return (f"sampling: {n} samples of {fmt_count(result.calls_per_sample)} call"
            f"{'s' if result.calls_per_sample != 1 else ''} per way{procs}{l2}, stopped by "
            f"{result.stop_reason}.")


def render_measure(result, comparison: Any = None) -> str:
    """The whole report of one MeasureResult; ``comparison``: a diff of an older record against it (text)."""
    lines = [f"cugraphlab measure: {result.work}", "", render_measure_table(result), ""]
    g = graph_line(result)
    if g:
        lines.append(g)
    lines += clock_lines(result)
    lines.append(_sm_line(result.sm_clock))
    lines.append(_sampling_line(result))
    lines += [f"note: {n}" for n in result.process_notes]
    if any(getattr(w, "relative", None) is not None for w in result.ways):
        lines.append("x ref: host µs per call over the reference's, round by round (paired): the call's cost in bare "
                     "launches of an empty kernel (the graph way's: in bare launches of a graph of one); it repeats "
                     "between processes where host µs moves with the process's launch-cost mode.")
    clocks = result.clocks or {}
    lines.append("clocks: " + "; ".join(f"{name} = {clocks[key]}" for name, key in
                                        (("held", "held"), ("cold", "cold"), ("host", "host_call"),
                                         ("wall", "wall"), ("device", "device"))
                                        if key in clocks) + ".")
    diag = diagnosis_lines(result)
    if diag:
        lines += ["", *diag]
    if comparison:
        lines += ["", comparison]
    lines.append(versions_line(result.env))
    return "\n".join(lines)
