"""The capture doctor's output: a diagnosis, the gallery, the modes table, the overhead (pure text)."""
from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

from ..bench.doctor import field_counts  # the record's conclusion, counted where the record is made
from .tables import format_table

__all__ = [
    "render_diagnosis",
    "render_doctor",
    "render_field",
    "render_gallery",
    "render_modes_table",
    "render_overhead",
    "render_session",
    "render_sites",
]

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
    watched = (f"{d['stack']} capture, {d['calls_seen']} refusal(s) or exception(s) seen" if d.get("stack") else
               f"{d['calls_seen']} driver calls watched")
    lines = [f"capture on stream {d['stream']} ({d['mode']}), begun at {d.get('where') or '?'}: {state}; {watched}"]
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


#: Labels of records written before the gallery named them right: a call the driver accepted (a synchronous copy,
#: run at once and not in the graph) read "refused: CUDA_SUCCESS".
OLD_OUTCOMES = {"refused: CUDA_SUCCESS": "ran, not captured"}


def render_modes_table(rows: Iterable[Any], modes=MODES) -> str:
    """Cases down, capture modes across: what each mode did with each case's call ("refused: CODE", "allowed",
    "ran, not captured")."""
    by_case: dict[str, dict[str, str]] = {}
    for r in rows:
        r = _plain(r)
        outcome = OLD_OUTCOMES.get(r["outcome"], r["outcome"])
        by_case.setdefault(r["case"], {})[r["mode"]] = outcome + ("" if r["restored"] else " (NOT restored)")
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
    """The whole ``cugraphlab doctor --gallery`` output, the short summary last; the field gallery after ours."""
    r = _plain(record)
    parts = []
    if r.get("cases"):
        parts += [render_gallery(r["cases"]), render_modes_table(r["modes"])]
        if r.get("overhead"):
            parts.append(render_overhead(r["overhead"]))
        parts.append(f"named {sum(c['named'] for c in r['cases'])}/{len(r['cases'])}, "
                     f"false alarms {r['false_alarms']}, state restored after every case: "
                     f"{'yes' if r['restored_all'] else 'NO'}")
    if r.get("field_cases"):
        parts.append(render_field(r["field_cases"]))
    if r.get("replay") or r.get("clean"):
        parts.append(render_replay_and_clean(r.get("replay") or [], r.get("clean") or [], r.get("field_cases") or []))
    return "\n\n".join(parts)


def render_replay_and_clean(replay: Iterable[Any], clean: Iterable[Any], field: Iterable[Any] = ()) -> str:
    """The replay hazards (flagged in the broken script, not in its twin) and the clean set: every correct program
    and every fixed twin that ran, with its findings (must be 0)."""
    replay, clean, field = [_plain(r) for r in replay], [_plain(c) for c in clean], [_plain(f) for f in field]
    lines = []
    for r in replay:
        state = f"skipped: {r['skipped']}" if r["skipped"] else (
            f"flagged in the mistake: {'yes' if r['caught'] else 'NO'}, not in its fix: "
            f"{'yes' if r['fix_works'] else 'NO'}")
        lines.append(f"replay hazard {r['key']} ({r['thread']}): {state}")
        first = next((d["findings"][0] for d in r["broken"].get("diagnoses") or [] if d.get("findings")), None)
        if first is not None:
            lines.append(f"  named: {first.get('kind')} {first.get('call')} at {first.get('where')}: "
                         f"{first.get('detail', '')}")
        if not r["skipped"]:
            lines.append(render_sites(r["broken"]["sites"]))
    rows = [[c["key"], "skipped" if c["skipped"] else c["run"]["code"], "-" if c["skipped"] else c["findings"],
             c["skipped"][:60] if c["skipped"] else ("ok" if c["ok"] else "NO")] for c in clean]
    twins = [f for f in field if not f["skipped"]]
    rows += [[f"{f['key']} --fixed", f["fixed"]["code"], sum(len(d.get("findings") or [])
                                                             for d in f["fixed"]["diagnoses"]),
              "ok" if f["fix_works"] else "NO"] for f in twins]
    ran = [row for row in rows if row[1] != "skipped"]
    findings = sum(int(row[2]) for row in ran)
    lines.append(format_table(["clean program", "exit", "findings", ""], rows, align="lrrl"))
    lines.append(f"clean set: {len(ran)} correct programs run under the doctor ({len(rows) - len(ran)} skipped), "
                 f"{findings} finding(s), {sum(1 for row in ran if row[3] != 'ok')} not clean")
    return "\n".join(lines)


def _found(run: Mapping) -> tuple[str, str, str]:
    for d in run.get("diagnoses") or []:
        if d.get("findings"):
            f = d["findings"][0]
            line = str(f.get("where", "")).split(",", 1)[0].rsplit(":", 1)[-1]
            return f.get("kind", "?"), str(f.get("call", "?")), line
    return "-", "-", "-"


def render_field(rows: Iterable[Any]) -> str:
    """The field gallery: one line per case (thread, stack, the class, call and line expected and found, caught,
    fix works, crash / hang / skip), the output of each run that missed, then the counts."""
    rows = [_plain(r) for r in rows]
    table, notes = [], []
    for r in rows:
        kind, call, line = _found(r["broken"])
        if r["skipped"]:
            verdict = f"skipped: {r['skipped']}"
        else:
            verdict = ", ".join(x for x in ("CRASH" if r["crashed"] else "", "HANG" if r["hung"] else "") if x) or "-"
        table.append([r["key"], r["stack"], r["thread"], f"{r['kind']} {r['call']} :{r['line']}",
                      f"{kind} {call} :{line}", "-" if r["skipped"] else ("yes" if r["caught"] else "NO"),
                      "-" if r["skipped"] else ("yes" if r["fix_works"] else "NO"), verdict[:70]])
        if r["skipped"]:
            continue
        for which, good in (("broken", r["caught"]), ("fixed", r["fix_works"])):
            run = r[which]
            if not good:
                notes.append(f"--- {r['key']} ({which}: exit {run['code']}"
                             f"{', timed out' if run['timed_out'] else ''}) ---\n{run['tail']}")
    n = field_counts(rows)
    head = format_table(["case", "stack", "thread", "expected (class call :line)", "found", "caught", "fix works",
                         "crash / hang / skip"], table, align="l" * 8)
    counts = (f"field gallery: {n['cases']} cases, {n['run']} run, caught {n['caught']}/{n['run']}, "
              f"fixes that work {n['fix_works']}/{n['run']}, crashes {n['crashes']}, hangs {n['hangs']}, "
              f"skipped {n['skipped']}")
    return "\n\n".join([head] + notes + [counts])


def _us(seconds: float, n: int) -> str:
    return f"{1e6 * seconds / n:.1f}" if n else "-"


def _mib(b) -> str:
    return "-" if not b else f"{b / (1 << 20):.1f}"


def render_sites(sites: Iterable[Mapping]) -> str:
    """The replay watch (``cugraphlab doctor --replay``), "is my graph reused, and does it pay off?": per capture
    site, captures, instantiations, replays and updates with the host cost of each (perf_counter_ns), the graph
    memory it holds, the break-even against eager with its verdict (graphs.doctor.sites); a warning where a site
    re-captures about as often as its graphs replay (pytorch/pytorch#171672); the updates the driver refused."""
    sites = list(sites)
    if not sites:
        return "replay watch: no capture seen (cugraphlab, PyTorch, CuPy or cuda.core)"
    rows = [[s["site"] or "?", s["stack"], s["captures"], s.get("instantiations", "-"), s["replays"],
             f"{s.get('updates', 0)}/{s.get('refused', 0)}", _us(s["capture_s"], s["captures"]),
             _us(s.get("instantiate_s", 0.0), s.get("instantiations", 0)) if s["stack"] != "torch" else "in capture",
             _us(s.get("replay_s", 0.0), s["replays"]), _us(s.get("update_s", 0.0), s.get("updates", 0)),
             _mib(s.get("graph_mem_used") or s.get("pool_bytes"))] for s in sites]
    lines = ["replay watch (host clock: perf_counter_ns; a capture from its begin to its end, PyTorch's instantiate "
             "included; graph memory: the device's in use after the site's first launch, cuDeviceGetGraphMemAttribute, "
             "or the growth of PyTorch's reserved pool over the capture):",
             format_table(["capture site", "stack", "captures", "instantiations", "replays", "updates/refused",
                           "us per capture", "us per instantiate", "us per replay", "us per update", "graph MiB"],
                          rows, align="llrrrrrrrrr")]
    for s in sites:
        if s.get("recaptures_every_replay"):
            lines.append(f"re-captured on every use: {s['site']} captured {s['captures']} times for {s['replays']} "
                         f"replays ({1e3 * s['capture_s']:.1f} ms of capture and instantiate): capture once, "
                         f"outside the loop, and replay the same graph (keep its inputs in static buffers)")
        if s.get("refused"):
            recapture = 1e6 * (s["capture_s"] / max(1, s["captures"]) + s.get("instantiate_s", 0.0)
                               / max(1, s.get("instantiations", 0)))
            lines.append(f"updates refused at {s['site']}: {s['refused']} of {s['updates']}, "
                         f"{_us(s['update_s'], s['updates'])} us per update against {recapture:.1f} us to capture "
                         f"and instantiate again; " + "; ".join(s.get("refusals", [])[:2]))
        if s.get("verdict"):
            lines.append(f"{s['site']}: {s['verdict']}")
    return "\n".join(lines)
