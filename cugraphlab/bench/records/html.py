"""The notebook display of a result record (``Record._repr_html_``): an HTML table of its main rows, then its
configuration, clocks and environment, all read from ``to_dict()`` (the same plain data its JSON file holds).

The main table is, in order of preference: the record's own ``_html_table()`` (a subclass hook returning
``(headers, rows)``); else the first list of row dicts in the record (``rows``, ``modes``, ``variants``, ...);
else every summary found in it (a dict with ``median``, ``p5``, ``p95``: one row per summary, named by its path);
else its kept samples (one row per label: n, median, min, max). Plain HTML, no style sheet, no JavaScript, so it
reads the same in Jupyter, VS Code, Colab and a notebook rendered on GitHub.
"""
from __future__ import annotations

import html
import statistics
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["record_html", "html_table", "main_table"]

_SUMMARY_KEYS = ("median", "p5", "p95")
_MAX_ROWS = 60
_MAX_CELL = 80


def _cell(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        text = {True: "yes", False: "no", None: "-"}[v]
    elif isinstance(v, float):
        text = f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"
    elif isinstance(v, int):
        text = f"{v:,}"
    elif isinstance(v, Mapping):
        text = ", ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    elif isinstance(v, (list, tuple)):
        text = ", ".join(_cell(x) for x in v[:8]) + (", ..." if len(v) > 8 else "")
    else:
        text = str(v)
    return text if len(text) <= _MAX_CELL else text[:_MAX_CELL - 3] + "..."


def html_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "") -> str:
    """An HTML table (cells escaped; numbers right-aligned; at most 60 rows, then a count of the rest)."""
    rows = list(rows)
    out = ["<table>"]
    if caption:
        out.append(f"<caption style='text-align:left'>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr></thead><tbody>")
    for row in rows[:_MAX_ROWS]:
        tds = []
        for v in row:
            align = " style='text-align:right'" if isinstance(v, (int, float)) and not isinstance(v, bool) else ""
            tds.append(f"<td{align}>{html.escape(_cell(v))}</td>")
        out.append("<tr>" + "".join(tds) + "</tr>")
    if len(rows) > _MAX_ROWS:
        out.append(f"<tr><td colspan='{len(headers)}'>... {len(rows) - _MAX_ROWS} more rows</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _is_summary(v: Any) -> bool:
    return isinstance(v, Mapping) and all(k in v for k in _SUMMARY_KEYS)


def _summaries(d: Any, path: str = "") -> list[tuple[str, Mapping]]:
    found = []
    if _is_summary(d):
        return [(path or "value", d)]
    if isinstance(d, Mapping):
        for k, v in d.items():
            if k in ("env", "config", "samples", "clocks"):
                continue
            found += _summaries(v, f"{path}.{k}" if path else str(k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            name = v.get("name") or v.get("mode") or v.get("label") if isinstance(v, Mapping) else None
            found += _summaries(v, f"{path}[{name or i}]")
    return found


def _row_lists(d: Mapping) -> list[tuple[str, list]]:
    return [(k, v) for k, v in d.items() if k not in ("env", "config", "samples", "clocks")
            and isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v)]


def _flat(row: Mapping) -> dict:
    """A row dict with summaries reduced to their median (column "x median")."""
    out = {}
    for k, v in row.items():
        if _is_summary(v):
            out[f"{k} median"] = v["median"]
        elif k != "samples":
            out[k] = v
    return out


def main_table(record, d: Mapping | None = None) -> tuple[list[str], list[list], str]:
    """(headers, rows, caption) of a record's main table (see the module docstring for the order tried)."""
    d = record.to_dict() if d is None else d
    hook = getattr(record, "_html_table", None)
    if callable(hook):
        got = hook()
        if got is not None:
            headers, rows = got
            return list(headers), [list(r) for r in rows], ""
    lists = _row_lists(d)
    if lists:
        name, rows = lists[0]
        flat = [_flat(r) for r in rows]
        headers = list(dict.fromkeys(k for r in flat for k in r))
        return headers, [[r.get(h) for h in headers] for r in flat], name
    sums = _summaries(d)
    if sums:
        rows = [[path, s.get("unit", ""), s["median"], s["p5"], s["p95"], s.get("n", ""), s.get("clock", "")]
                for path, s in sums]
        return ["row", "unit", "median", "p5", "p95", "n", "clock"], rows, "summaries"
    samples = d.get("samples") or {}
    rows = []
    for label, entry in samples.items():
        values = entry.get("values") or []
        rows.append([label, entry.get("unit", ""), len(values), statistics.median(values) if values else None,
                     min(values) if values else None, max(values) if values else None, entry.get("clock", "")])
    return ["row", "unit", "n", "median", "min", "max", "clock"], rows, "samples"


def _env_line(env: Mapping) -> str:
    gpu = env.get("gpu") or {}
    drv = env.get("driver") or {}
    pk = env.get("packages") or {}
    parts = [gpu.get("name") if isinstance(gpu, Mapping) else str(gpu),
             f"driver {drv.get('release')} (CUDA {drv.get('cuda')})" if isinstance(drv, Mapping) and drv else None,
             f"cuda-bindings {pk.get('cuda-bindings')}" if pk.get("cuda-bindings") else None,
             f"NVRTC {pk.get('nvrtc')}" if pk.get("nvrtc") else None,
             f"commit {env.get('commit')}" if env.get("commit") else None,
             env.get("timestamp")]
    return ", ".join(p for p in parts if p)


def record_html(record) -> str:
    """The HTML a notebook shows for ``record``: kind, main table, config, clocks, environment."""
    d = record.to_dict()
    headers, rows, caption = main_table(record, d)
    parts = [f"<div><b>{html.escape(str(d.get('kind')))}</b> (schema {html.escape(str(d.get('schema')))})"]
    if headers:
        parts.append(html_table(headers, rows, caption))
    config = d.get("config") or {}
    if config:
        parts.append(html_table(["config", "value"], [[k, v] for k, v in config.items()]))
    clocks = d.get("clocks") or {}
    if clocks:
        parts.append("<p>clocks: " + "; ".join(f"<i>{html.escape(k)}</i> = {html.escape(str(v))}"
                                               for k, v in clocks.items()) + "</p>")
    env = d.get("env") or {}
    if env:
        parts.append(f"<p>measured on: {html.escape(_env_line(env))}</p>")
    parts.append("</div>")
    return "".join(parts)
