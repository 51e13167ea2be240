"""Any JSON record shown plainly: its fields, its tables of rows, its samples summarized, the records it holds.

The records of the studies and benchmark scripts (``benchmarks/``) have classes and reports of their own outside the
package, and a record of an older schema may not fit today's class; ``render_plain`` still shows what they hold,
without knowing their shape:

- the scalar fields, then ``config`` on one line and ``env`` as the versions line every table ends with;
- ``samples`` (label -> {unit, values}) as one table: n, median, p5, p95 per label;
- every list of objects (``rows``, ``checks`` ...) as a table of its scalar columns, and every object of summaries
  (label -> {median, p5, p95, ...}) as a table of them;
- a record inside the record (an object with a ``kind``) through ``render_inner``, which ``report.show`` gives as
  the rendering of its kind, so that a study's wrapper of ``cugraphlab.switch`` records prints the switch tables.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from .env import versions_line
from .tables import format_table

__all__ = ["render_plain", "MAX_ROWS"]

#: Rows shown per table; the rest are counted (the file holds them all).
MAX_ROWS = 100
_MAX_COLUMNS = 12
_SKIP = ("kind", "schema", "config", "env", "clocks", "samples")


def render_plain(d: Mapping[str, Any], title: str,
                 render_inner: Callable[[Mapping[str, Any], str], str] | None = None) -> str:
    """The plain text of the JSON object ``d``, headed by ``title``; ``render_inner(obj, path)`` renders an object
    found inside with a ``kind`` of its own (default: plainly, with the same rules)."""
    inner = render_inner or (lambda obj, path: render_plain(obj, path))
    out = [title]
    scalars = [(k, v) for k, v in d.items() if k not in _SKIP and _is_scalar(v)]
    if scalars:
        out += [""] + [f"{k}: {_cell(v)}" for k, v in scalars]
    config = d.get("config")
    if isinstance(config, Mapping) and config:
        out += ["", "config: " + ", ".join(f"{k}={_cell(v)}" for k, v in config.items() if _is_scalar(v))]
    samples = d.get("samples")
    if isinstance(samples, Mapping) and samples:
        out += ["", *_samples_table(samples)]
    for key, value in d.items():
        if key in _SKIP or _is_scalar(value):
            continue
        out += _section(key, value, inner, depth=0)
    env = d.get("env")
    if isinstance(env, Mapping) and "packages" in env:
        out += ["", versions_line(env)]
    return "\n".join(out)


def _section(path: str, value: Any, inner, depth: int) -> list[str]:
    if isinstance(value, Mapping):
        if _is_record(value):
            return ["", f"== {path} ({value['kind']})", inner(value, path)]
        if value and all(_is_summary(v) for v in value.values()):
            return ["", f"{path}:", *_summary_table(value)]
        if depth >= 3:
            return ["", f"{path}: an object of {len(value)} fields"]
        out, flat = [], [(k, v) for k, v in value.items() if _is_scalar(v)]
        if flat:
            out += ["", f"{path}: " + ", ".join(f"{k}={_cell(v)}" for k, v in flat)]
        for k, v in value.items():
            if not _is_scalar(v):
                out += _section(f"{path}.{k}", v, inner, depth + 1)
        return out
    if isinstance(value, list):
        objects = [v for v in value if isinstance(v, Mapping)]
        if objects and len(objects) == len(value):
            if all(_is_record(v) for v in objects):
                return [line for i, v in enumerate(objects) for line in _section(f"{path}[{i}]", v, inner, depth)]
            return ["", f"{path}: {len(objects)} rows", *_rows_table(objects)]
        if all(_is_scalar(v) for v in value):
            return ["", f"{path}: " + ", ".join(_cell(v) for v in value[:MAX_ROWS])
                    + (f" ... ({len(value) - MAX_ROWS} more)" if len(value) > MAX_ROWS else "")]
        return ["", f"{path}: a list of {len(value)} items"]
    return []


def _samples_table(samples: Mapping[str, Any]) -> list[str]:
    import numpy as np

    rows = []
    for label, s in samples.items():
        values = s.get("values") if isinstance(s, Mapping) else s
        unit = s.get("unit", "") if isinstance(s, Mapping) else ""
        v = np.asarray([x for x in (values or []) if isinstance(x, (int, float)) and math.isfinite(x)], dtype=float)
        if v.size:
            p5, med, p95 = np.percentile(v, [5, 50, 95])
            rows.append([label, unit, v.size, _num(med), _num(p5), _num(p95)])
        else:
            rows.append([label, unit, 0, "-", "-", "-"])
    return ["samples:", *_limited(format_table(["label", "unit", "n", "median", "p5", "p95"], rows), len(rows))]


def _summary_table(value: Mapping[str, Any]) -> list[str]:
    rows = [[k, _num(s.get("median")), _num(s.get("p5")), _num(s.get("p95")), s.get("n", ""), s.get("unit", "")]
            for k, s in value.items()]
    return _limited(format_table(["", "median", "p5", "p95", "n", "unit"], rows), len(rows))


def _rows_table(objects: list) -> list[str]:
    columns: list[str] = []
    for o in objects:
        for k, v in o.items():
            if k not in columns and (_is_scalar(v) or _is_summary(v)):
                columns.append(k)
    columns = columns[:_MAX_COLUMNS]
    if not columns:
        return []
    rows = [[_cell(o.get(c)) for c in columns] for o in objects[:MAX_ROWS]]
    return _limited(format_table(columns, rows), len(objects))


def _limited(table: str, n: int) -> list[str]:
    lines = table.splitlines()
    if n > MAX_ROWS:
        lines.append(f"... {n - MAX_ROWS} more rows in the file")
    return lines


def _is_record(v: Mapping) -> bool:
    """A record inside a record: a ``kind`` of its own and an ``env`` or ``schema`` (a row may have a kind column)."""
    return isinstance(v.get("kind"), str) and ("env" in v or "schema" in v)


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _is_summary(v: Any) -> bool:
    return isinstance(v, Mapping) and "median" in v and _is_scalar(v.get("median"))


def _num(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "-" if v is None else str(v)
    return f"{v:.4g}" if isinstance(v, float) else f"{v:,}"


def _cell(v: Any) -> str:
    if _is_summary(v):
        return f"{_num(v['median'])} [{_num(v.get('p5'))}-{_num(v.get('p95'))}]"
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, str) and len(v) > 60:
        return v[:57] + "..."
    return "-" if v is None else str(v)
