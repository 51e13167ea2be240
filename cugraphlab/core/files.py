"""JSON, CSV and text result files, and the paths they go to.

``write_text`` (and ``write_json``, ``write_csv`` on top of it) decides by what the path is: a regular file (or
nothing yet) is written to a temporary file beside it and renamed over it, so an interrupted benchmark never leaves
a truncated file that a later plotting step would half-read; a symlink is followed; a character device or a FIFO
(``/dev/stdout``, ``/dev/null``, a named pipe, a shell's ``>(jq .)``) is written through. ``check_output``
says ahead of time whether a path can be written that way, ``stem_path`` whether a figure stem names files.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from .cache import replace_atomically
from .errors import InvalidArgumentError

__all__ = ["Tee", "check_output", "created_folder", "make_parents", "written_text", "read_csv", "read_json", "stem_path", "to_jsonable", "write_csv", "write_json",
           "write_text"]

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


def _umask() -> int:
    """This process's umask, read without changing it where Linux tells it (os.umask can only be read by setting)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stream_kind(mode: int) -> str | None:
    """'character device' or 'FIFO' for what is written through, None for a regular file."""
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    return None


def _target(path: Path) -> tuple[Path, os.stat_result | None]:
    """The path written to and its stat (None: absent). A regular file behind a symlink is its target (even a
    dangling link's, created); anything else is opened through the name given, so that a shell's ``/dev/fd/63``
    (a link the kernel resolves, whose text ``pipe:[...]`` names no file) still reaches its pipe."""
    try:
        st = os.stat(path)  # follows every link
    except (FileNotFoundError, NotADirectoryError):  # absent, or under a file (refused by check_output)
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        return path, st
    return (Path(os.path.realpath(path)) if path.is_symlink() else path), st


def check_output(path: str | os.PathLike) -> str:
    """What ``write_text`` would do with ``path``: ``"replace"`` (a regular file, or none yet: written beside it and
    renamed over it) or ``"write through"`` (a character device or a FIFO). InvalidArgumentError, one line, for a
    path that cannot be written: empty, a folder, a block device or a socket, an unwritable file, a parent that
    is a file, or a folder this process cannot create files in."""
    text = os.fspath(path)
    if not text:
        raise InvalidArgumentError("an empty path: give a file path")
    target, st = _target(Path(text))
    shown = text if target == Path(text) else f"{text} (a link to {target})"
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise InvalidArgumentError(f"{shown}: is a folder; give a file path")
        if _stream_kind(st.st_mode):
            if not os.access(target, os.W_OK):
                raise InvalidArgumentError(f"{shown}: the {_stream_kind(st.st_mode)} is not writable")
            return "write through"
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArgumentError(f"{shown}: not a regular file, a character device or a FIFO")
        if not os.access(target, os.W_OK):
            raise InvalidArgumentError(f"{shown}: the file is not writable")
    folder = target.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not folder.is_dir():
        raise InvalidArgumentError(f"{shown}: {folder} is not a folder")
    try:  # a real probe: os.access says yes to root even on a read-only file system
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".cugraphlab-probe-"):
            pass
    except OSError as e:
        raise InvalidArgumentError(f"{shown}: cannot write in {folder} ({e.strerror or e})") from None
    return "replace"


#: absolute path of a file written -> the top folder created for it (``make_parents``), for ``written_text``
_CREATED: dict[str, Path] = {}


def make_parents(path: str | os.PathLike, *, given: str | os.PathLike | None = None) -> None:
    """Create the missing folders above ``path`` (as ``mkdir -p``), remembering the top one created, so that the
    line reporting the file written can say so (``written_text``); ``given``: the name the user gave, when
    ``path`` is a link's target."""
    folder = Path(path).parent
    top, f = None, folder
    while not f.exists() and f.parent != f:
        top, f = f, f.parent
    folder.mkdir(parents=True, exist_ok=True)
    for name in {os.path.abspath(path), os.path.abspath(given if given is not None else path)}:
        if top is not None:
            _CREATED[name] = top
        else:
            _CREATED.pop(name, None)


def created_folder(path: str | os.PathLike) -> Path | None:
    """The folder created to hold ``path`` when this process wrote it (None: its folder existed)."""
    return _CREATED.get(os.path.abspath(path))


def written_text(path: str | os.PathLike) -> str:
    """``path`` as a line reporting it written names it: with ``(created the folder F)`` when F had to be made."""
    top = created_folder(path)
    return f"{os.fspath(path)} (created the folder {top})" if top is not None else os.fspath(path)


def stem_path(stem: str | os.PathLike) -> Path:
    """``stem`` as the Path that figure files are named from (``STEM.png``, ``STEM.svg``, ``STEM_timeline.png``).

    A stem names files, so one that names a folder is refused (InvalidArgumentError, one line): empty, ending in
    ``/`` (``plots/`` would otherwise write ``plots.png`` beside the folder), or ending in ``.`` or ``..``. Write
    the folder and a name: ``plots/run``."""
    text = os.fspath(stem)
    seps = tuple(s for s in (os.sep, os.altsep) if s)
    last = Path(text).name if text else ""
    if not text or text.endswith(seps) or last in ("", ".", ".."):
        raise InvalidArgumentError(f"{text!r} names a folder, not files: a stem is a path without its suffix "
                                   f"(STEM.png, STEM.svg); write a name too, e.g. {os.path.join(text or '.', 'figure')}")
    return Path(text)


def write_text(path: str | os.PathLike, text: str, *, newline: str | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path``; returns ``path`` as a Path.

    By what ``path`` is:

    - a regular file, or nothing yet: the text goes to a temporary file in the same folder (missing folders are
      created), flushed and fsynced, then ``os.replace``-d over the target, so a reader sees the old file or the
      new one, never half of one. The new file has the mode a plain ``open(path, "w")`` would give it: an existing
      file's permission bits are kept, a new file gets ``0o666`` less the umask (not mkstemp's ``0600``).
    - a symlink: followed, and its target written as above; the link stays a link (a dangling link's target is
      created).
    - a character device or a FIFO (``/dev/stdout``, ``/dev/null``, a named pipe, a shell's ``>(jq .)``): written
      through, in place. These are streams, not files a later reader could find half-written, and replacing one
      would put a regular file where ``/dev/null`` was (as root) or leave the reader of the pipe waiting forever;
      so ``--json /dev/stdout`` prints the record, as every Unix tool's output option does.
    - anything else (a folder, a block device, a socket): refused before anything is written
      (InvalidArgumentError, from ``check_output``).
    """
    given = Path(path)
    if check_output(given) == "write through":
        with open(_target(given)[0], "w", encoding="utf-8", newline=newline) as fh:
            fh.write(text)
        return given
    target, st = _target(given)
    make_parents(target, given=given)
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    ending = os.linesep if newline is None else newline  # what open(..., newline=newline) would write for "\n"
    if ending not in ("", "\n"):
        text = text.replace("\n", ending)
    replace_atomically(target, text.encode("utf-8"), mode, fsync=True)
    return given


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as indented JSON (key order preserved), as ``write_text`` writes.

    Converts via :func:`to_jsonable`; creates parent directories. The
    conversion happens before anything is written, so an unserializable
    object leaves any existing file untouched. Returns the path written.
    """
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=False,
                      ensure_ascii=False, allow_nan=False) + "\n"
    return write_text(path, text)


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
    """Write flat dicts (or dataclass instances) as CSV, as ``write_text`` writes.

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
    return write_text(path, buf.getvalue(), newline="")


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
