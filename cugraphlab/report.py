"""Plain-text tables and JSON/CSV result files.

Result files are written atomically (temp file + ``os.replace``) so an
interrupted benchmark never leaves a truncated file that a later plotting
step would half-read.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "fmt_count",
    "fmt_us",
    "format_table",
    "read_csv",
    "read_json",
    "to_jsonable",
    "write_csv",
    "write_json",
]

# A cell that "looks numeric": plain numbers, thousands separators, an
# optional short unit suffix ("12.5 µs", "3.1x", "97%"), or inf/nan.
_NUMERIC_CELL = re.compile(
    r"^[+-]?(?:(?:\d[\d,]*)?\.?\d+(?:[eE][+-]?\d+)?|inf|nan)\s*(?:%|x|[A-Za-zµ/]{1,4})?$"
)
_INT_TEXT = re.compile(r"^[+-]?\d+$")
_FLOAT_TEXT = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|nan)$")


# ---------------------------------------------------------------- formatting

def fmt_us(x: float | None, *, unit: bool = True) -> str:
    """Format a duration in microseconds with precision suited to its size.

    ``fmt_us(3.14159) == "3.14 µs"``, ``fmt_us(12345.6) == "12,346 µs"``;
    ``None``/NaN give ``"n/a"``. Pass ``unit=False`` to omit the suffix.
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    x = float(x)
    ax = abs(x)
    if math.isinf(x):
        text = "inf" if x > 0 else "-inf"
    elif ax < 1:
        text = f"{x:.3f}"
    elif ax < 10:
        text = f"{x:.2f}"
    elif ax < 1000:
        text = f"{x:.1f}"
    else:
        text = f"{x:,.0f}"
    return f"{text} µs" if unit else text


def fmt_count(n: float | int) -> str:
    """Format a count with thousands separators: ``fmt_count(1234567) == "1,234,567"``.

    Integral floats print without decimals; other floats keep two decimals.
    """
    if isinstance(n, (float, np.floating)) and not float(n).is_integer():
        return f"{float(n):,.2f}"
    return f"{int(n):,}"


def _display_width(text: str) -> int:
    # len() miscounts combining marks (0 columns) and East Asian wide/full
    # characters (2 columns); 'µ' and other narrow letters count as one.
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        av = abs(v)
        if av == 0 or av >= 100:
            return f"{v:.1f}"
        if av >= 1:
            return f"{v:.2f}"
        return f"{v:.3g}"
    return str(value)


def _is_numeric_cell(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return True
    return isinstance(value, str) and bool(_NUMERIC_CELL.match(value.strip()))


def _pad(text: str, width: int, align: str) -> str:
    fill = " " * (width - _display_width(text))
    return fill + text if align == ">" else text + fill


def format_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    align: Sequence[str] | str | None = None,
) -> str:
    """Render an aligned plain-text table.

    Output is a header line, a rule of ``-``, then one line per row, columns
    separated by two spaces, no trailing whitespace. By default a column is
    right-aligned when every non-empty cell is numeric (a number, or a string
    such as ``"1,234"`` or ``"3.2 µs"``), otherwise left-aligned.

    Args:
        headers: column titles.
        rows: sequences of cells, each as long as ``headers``; ``None`` cells
            print empty, floats get size-dependent precision.
        align: per-column alignment, each ``"<"``/``"l"`` (left) or
            ``">"``/``"r"`` (right); a string like ``"lrr"`` also works.

    Raises:
        ValueError: if a row or ``align`` has the wrong length or an unknown
            alignment code.
    """
    headers = [str(h) for h in headers]
    ncol = len(headers)
    raw_rows = [list(r) for r in rows]
    for i, r in enumerate(raw_rows):
        if len(r) != ncol:
            raise ValueError(f"row {i} has {len(r)} cells, expected {ncol}")

    if align is None:
        aligns = []
        for c in range(ncol):
            cells = [r[c] for r in raw_rows if r[c] is not None and r[c] != ""]
            numeric = bool(cells) and all(_is_numeric_cell(v) for v in cells)
            aligns.append(">" if numeric else "<")
    else:
        if len(align) != ncol:
            raise ValueError(f"align has {len(align)} entries, expected {ncol}")
        codes = {"<": "<", "l": "<", ">": ">", "r": ">"}
        try:
            aligns = [codes[a] for a in align]
        except KeyError as exc:
            raise ValueError(f"unknown alignment {exc.args[0]!r}; use '<', '>', 'l' or 'r'") from None

    text_rows = [[_cell_text(v) for v in r] for r in raw_rows]
    widths = [
        max([_display_width(headers[c])] + [_display_width(r[c]) for r in text_rows])
        for c in range(ncol)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(_pad(t, widths[c], aligns[c]) for c, t in enumerate(cells)).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in text_rows)
    return "\n".join(out)


# ---------------------------------------------------------------- JSON / CSV

def to_jsonable(obj: Any) -> Any:
    """Convert ``obj`` to plain JSON types.

    Handles dataclass instances (their ``to_dict()`` if present, else
    :func:`dataclasses.asdict`), numpy scalars and arrays, ``Path``, tuples and
    sets. Non-finite floats become ``None`` so the output is strict JSON.

    Raises:
        TypeError: for objects with no JSON representation.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        to_dict = getattr(obj, "to_dict", None)
        return to_jsonable(to_dict() if callable(to_dict) else dataclasses.asdict(obj))
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return [to_jsonable(v) for v in sorted(obj, key=repr)]
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")


def _atomic_write_text(path: str | os.PathLike, text: str, *, newline: str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Same directory as the target so os.replace is a same-filesystem rename.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Atomically write ``obj`` as indented JSON (key order preserved).

    Converts via :func:`to_jsonable`; creates parent directories. The
    conversion happens before anything is written, so an unserializable
    object leaves any existing file untouched. Returns the path written.
    """
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=False,
                      ensure_ascii=False, allow_nan=False) + "\n"
    return _atomic_write_text(path, text)


def read_json(path: str | os.PathLike) -> Any:
    """Load a JSON file written by :func:`write_json` (or any JSON file)."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _csv_cell(value: Any) -> Any:
    value = to_jsonable(value)
    if isinstance(value, (dict, list)):
        raise TypeError(f"CSV cells must be scalars, got {type(value).__name__}")
    return "" if value is None else value


def write_csv(path: str | os.PathLike, rows: Iterable[Mapping[str, Any] | Any]) -> Path:
    """Atomically write flat dicts (or dataclass instances) as CSV.

    The header is the union of keys in first-seen order; missing cells and
    ``None`` are written empty. With no rows an empty file is written.
    Returns the path written.

    Raises:
        TypeError: if a cell is a nested list/dict.
    """
    dict_rows: list[dict[str, Any]] = []
    for r in rows:
        d = to_jsonable(r) if dataclasses.is_dataclass(r) else r
        dict_rows.append({str(k): _csv_cell(v) for k, v in d.items()})
    header: dict[str, None] = {}
    for d in dict_rows:
        for k in d:
            header.setdefault(k, None)

    buf = io.StringIO(newline="")
    if header:
        writer = csv.DictWriter(buf, fieldnames=list(header), restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(dict_rows)
    return _atomic_write_text(path, buf.getvalue(), newline="")


def _parse_cell(text: str) -> Any:
    s = text.strip()
    if s == "":
        return None
    if _INT_TEXT.match(s):
        return int(s)
    if _FLOAT_TEXT.match(s.lower()):
        return float(s)
    return text


def read_csv(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a CSV with a header row into dicts.

    Numeric strings become ``int``/``float``; empty cells become ``None``;
    everything else stays a string.
    """
    with open(path, encoding="utf-8", newline="") as fh:
        return [{k: _parse_cell(v) for k, v in row.items()} for row in csv.DictReader(fh)]
