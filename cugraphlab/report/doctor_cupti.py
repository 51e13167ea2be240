"""The capture doctor's CUPTI mode in text: what CUPTI cost the capture, and where libcupti came from (pure text)."""
from __future__ import annotations

from typing import Any, Mapping

from .doctor import render_doctor
from .tables import format_table

__all__ = ["render_cupti_overhead", "render_cupti_log", "render_doctor_cupti"]


def _plain(d: Any) -> Mapping:
    return d.to_dict() if hasattr(d, "to_dict") else d


def render_cupti_overhead(o: Mapping) -> str:
    """Capture µs plain, with explain=True and with explain=True, cupti=True; replay µs of the three graphs."""
    if not o or "capture_cupti" not in o:
        return ""
    labels = [f"{phase}_{v}" for phase in ("capture", "replay") for v in ("plain", "explained", "cupti")]
    rows = [[label.replace("_", " "), o[label]["median"], o[label]["p5"], o[label]["p95"], o[label]["clock"]]
            for label in labels]
    n = o["launches_per_capture"]
    return (f"CUPTI mode overhead ({n} launches per capture; replay per cuGraphLaunch):\n"
            + format_table(["", "median us", "p5", "p95", "clock"], rows)
            + f"\ncapture with CUPTI x{o['cupti_capture_ratio']:.2f} of plain "
              f"(+{o['cupti_us_per_call']:.2f} us per call over explain=True alone); "
              f"replay x{o['cupti_replay_ratio']:.3f} (the same executable)")


def render_cupti_log(diagnosis: Any, limit: int = 8) -> str:
    """A diagnosis's CUPTI summary: library, calls reported, the first calls made outside cugraphlab."""
    c = _plain(diagnosis).get("cupti") or {}
    if not c:
        return ""
    head = (f"CUPTI ({c['library']}): {c['calls']} API calls reported during the capture, "
            f"{c['foreign']} outside cugraphlab")
    return "\n".join([head] + [f"    {line}" for line in c["log"][:limit]])


def render_doctor_cupti(record: Any) -> str:
    """``cugraphlab doctor --gallery --cupti``: the gallery (each foreign case's CUPTI log), the modes table, both
    overheads, the summary last."""
    r = _plain(record)
    logs = [f"--- {c['case']} (CUPTI) ---\n{render_cupti_log(c['diagnosis'])}" for c in r["cases"]
            if c.get("diagnosis") and (c["diagnosis"].get("cupti") or {}).get("foreign")]
    head = f"CUPTI mode: libcupti {r['config'].get('cupti_library', '?')}"
    parts = [head, *logs, render_doctor(record)]
    extra = render_cupti_overhead(r.get("overhead") or {})
    if extra:
        parts.insert(-1, extra)
    return "\n\n".join(parts)
