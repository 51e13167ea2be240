"""The capture doctor's output: a diagnosis, the gallery, the modes table, the overhead (pure text)."""
from __future__ import annotations

import textwrap
from typing import Any, Iterable, Mapping

from .tables import format_table

__all__ = ["render_diagnosis", "render_gallery", "render_modes_table", "render_overhead", "render_doctor",
           "render_session"]

MODES = ("global", "thread_local", "relaxed")
_WIDTH = 100


def _plain(d: Any) -> Mapping:
    return d.to_dict() if hasattr(d, "to_dict") else d


def _para(label: str, text: str) -> str:
    return textwrap.fill(text, _WIDTH, initial_indent=f"    {label}: ", subsequent_indent=" " * 8)


def render_diagnosis(d: Any) -> str:
    """A Diagnosis (or its dict): the capture, then each finding with its call, frame, state change, the class of
    mistake and the fix (one paragraph each), then the open dependency sets seen before cuStreamEndCapture."""
    d = _plain(d)
    state = "made a graph" if d["ok"] else f"failed ({d['end_result']})"
    lines = [f"capture on stream {d['stream']} ({d['mode']}), begun at {d.get('where') or '?'}: {state}; "
             f"{d['calls_seen']} driver calls watched"]
    if not d["findings"]:
        lines.append("  no findings")
    for i, f in enumerate(d["findings"], 1):
        call = f"{f['call']}({f['args']})" if f["seen"] else "a call outside cugraphlab"
        lines.append(f"  [{i}] {f['title']}")
        lines.append(f"    call: {call}" + (f" -> {f['result']}" if f["result"] else ""))
        lines.append(f"    where: {f['where'] or '?'}" + (f" (thread {f['thread']})" if f.get("thread") else ""))
        if f["status_change"]:
            lines.append(f"    state: {f['status_change']}")
        if f["detail"]:
            lines.append(_para("detail", f["detail"]))
        lines.append(_para("why", f["why"]))
        lines.append(_para("fix", f["fix"]))
    if d.get("later"):
        lines.append("  later refusals (consequences of the first): " + "; ".join(d["later"][:3]))
    deps = d.get("open_dependencies") or {}
    if len(deps) > 1:
        lines.append("  open dependencies before cuStreamEndCapture:")
        for stream, nodes in deps.items():
            lines.append(f"    {stream}: {', '.join(nodes) or '(none)'}")
    return "\n".join(lines)


def render_session(diagnoses: Iterable[Any]) -> str:
    """What ``cugraphlab doctor SCRIPT`` prints at the end: every capture's diagnosis, or "no capture made"."""
    diagnoses = [_plain(d) for d in diagnoses]
    if not diagnoses:
        return "cugraphlab doctor: no capture made through cugraphlab"
    bad = sum(1 for d in diagnoses if d["findings"])
    head = f"cugraphlab doctor: {len(diagnoses)} capture(s), {bad} with findings"
    return "\n\n".join([head] + [render_diagnosis(d) for d in diagnoses if d["findings"]])


def render_gallery(results: Iterable[Any]) -> str:
    """One line per gallery case (class and call named, state restored), then each diagnosis."""
    rows, blocks = [], []
    for r in results:
        r = _plain(r)
        d = r["diagnosis"]
        first = d["findings"][0] if d and d["findings"] else None
        rows.append([r["case"], r["mode"], first["kind"] if first else "-", first["call"] if first else "-",
                     "yes" if r["named"] else "NO", "yes" if r["restored"] else "NO",
                     f"{r['memory_delta'] / 2**20:+.1f}"])
        if d:
            blocks.append(f"--- {r['case']} ---\n{render_diagnosis(d)}")
        elif r.get("error"):
            blocks.append(f"--- {r['case']} ---\n  case failed: {r['error']}")
    table = format_table(["case", "mode", "class found", "call found", "named", "restored", "free MiB"], rows)
    return "\n\n".join(blocks + [table])


def render_modes_table(rows: Iterable[Any], modes=MODES) -> str:
    """Cases down, capture modes across: what each mode did with each case's call ("refused: CODE", "allowed")."""
    by_case: dict[str, dict[str, str]] = {}
    for r in rows:
        r = _plain(r)
        by_case.setdefault(r["case"], {})[r["mode"]] = r["outcome"] + ("" if r["restored"] else " (NOT restored)")
    table = [[case] + [cells.get(m, "") for m in modes] for case, cells in by_case.items()]
    return ("which capture mode refuses which call:\n"
            + format_table(["case", *modes], table, align="l" * (len(modes) + 1))
            + "\n" + STACK_DEFAULTS)


#: Default capture modes of the stacks, from their own documentation and source.
STACK_DEFAULTS = ("defaults: PyTorch torch.cuda.graph(capture_error_mode='global'); CuPy Stream.begin_capture() "
                  "relaxed; cuda.core GraphBuilder.begin_building(mode='relaxed'); cugraphlab capture(mode="
                  "'thread_local')")


def render_overhead(o: Mapping) -> str:
    """Capture µs with and without explain=True, and replay µs of both graphs."""
    if not o:
        return ""
    rows = [[label.replace("_", " "), o[label]["median"], o[label]["p5"], o[label]["p95"], o[label]["clock"]]
            for label in ("capture_plain", "capture_explained", "replay_plain", "replay_explained")]
    n = o["launches_per_capture"]
    return (f"explain=True overhead ({n} launches per capture; replay per cuGraphLaunch):\n"
            + format_table(["", "median us", "p5", "p95", "clock"], rows)
            + f"\ncapture x{o['capture_ratio']:.2f} ({o['explain_us_per_call']:.2f} us per watched call); "
              f"replay x{o['replay_ratio']:.3f} (the same executable)")


def render_doctor(record: Any) -> str:
    """The whole ``cugraphlab doctor --gallery`` output, the short summary last."""
    r = _plain(record)
    parts = [render_gallery(r["cases"]), render_modes_table(r["modes"])]
    if r.get("overhead"):
        parts.append(render_overhead(r["overhead"]))
    parts.append(f"named {sum(c['named'] for c in r['cases'])}/{len(r['cases'])}, "
                 f"false alarms {r['false_alarms']}, state restored after every case: "
                 f"{'yes' if r['restored_all'] else 'NO'}")
    return "\n\n".join(parts)
