"""Plain-text tables and number formatting."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = ["fmt_count", "fmt_us", "format_table", "bit_exact_cell"]

# A cell that "looks numeric": plain numbers, thousands separators, an
# optional short unit suffix ("12.5 µs", "3.1x", "97%"), or inf/nan.
_NUMERIC_CELL = re.compile(
    r"^[+-]?(?:(?:\d[\d,]*)?\.?\d+(?:[eE][+-]?\d+)?|inf|nan)\s*(?:%|x|[A-Za-zµ/]{1,4})?$"
)


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


def bit_exact_cell(ok: bool, mismatches: int) -> str:
    """The 'vs NumPy' cell: bit-exact, or how many elements differ."""
    return "bit-exact" if ok else f"FAILED ({mismatches} bad)"
