"""JSON and CSV result files, written atomically (temp file + ``os.replace``) so an interrupted benchmark never leaves
a truncated file that a later plotting step would half-read."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

__all__ = ["Tee", "read_csv", "read_json", "to_jsonable", "write_csv", "write_json"]

_INT_TEXT = re.compile(r"^[+-]?\d+$")
_FLOAT_TEXT = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|nan)$")


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


class Tee(io.TextIOBase):
    """A text stream writing to every stream it was given, each flushed at once (a benchmark's log beside its
    terminal output: ``with redirect_stdout(Tee(sys.stdout, log)): ...``)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
            st.flush()
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()
