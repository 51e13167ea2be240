"""A result record back from its JSON: the Record subclass of its kind, rebuilt field by field.

A record written on a GPU machine (``to_dict()`` -> ``core.files.write_json``) can be read on any machine and
handed to the same ``report`` functions that printed it there, so that a notebook or a CI job without a GPU shows
the committed H200 tables and figures::

    import cugraphlab as cgl
    from cugraphlab.report import render_record

    result = cgl.load_record("benchmarks/results/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json")
    print(render_record(result))      # the tables `cugraphlab memnodes` printed, its properties working

How: ``record_class(kind)`` finds the subclass of ``Record`` whose ``KIND`` is ``d["kind"]`` in the one registry
of kinds, which the classes fill themselves as they are defined (``record_kinds`` imports every bench module); a class with its own ``from_dict`` (``CompareResult``) rebuilds
itself; any other is rebuilt from its dataclass fields and their type hints: a ``Summary`` through
``Summary.from_dict``, a nested dataclass (a row) recursively, ``list[X]`` item by item, ``dict[K, X]`` value by
value, anything else as it is.
Keys a record derives on writing (``verified``, ``goals`` ...) are not fields and are left out: the rebuilt
object computes them again. No device, no driver.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import os
import pkgutil
import re
import types
import typing
from typing import Any, Mapping

from ..stats.summary import Summary
from .names import kind_now
from .record import _KINDS, Record, RecordError, check_record

__all__ = ["record_kinds", "record_class", "record_from_dict", "load_record", "read_json", "rebuild_dataclass"]

#: Modules under bench/ that hold no record class and need optional packages (the compare stacks import CuPy,
#: PyTorch, JAX ... when they run, never at import, but skipping them keeps the walk quick).
_SKIP = ("cugraphlab.bench.compare.stacks",)


def record_kinds() -> dict[str, type]:
    """kind -> Record subclass, for every record class of the package.

    Built from the classes themselves (``Record.__init_subclass__`` registers each KIND as its class is defined):
    every module under ``bench/`` is imported once, so that a kind is found wherever its class lives. A module
    that cannot be imported here (an optional dependency) is passed over: its kinds are then unknown.
    """
    package = importlib.import_module(__package__.rpartition(".")[0])
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.startswith(_SKIP):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    return dict(_KINDS)


def record_class(kind: str) -> type:
    """The Record subclass whose KIND is ``kind`` (an old name read as its name now: ``names.kind_now``).

    Parameters
    ----------
    kind : str
        A record's ``kind`` ("cugraphlab.run", ...), or an old name of one.

    Returns
    -------
    type
        The Record subclass.

    Raises
    ------
    RecordError
        No class has that kind (one line, listing the known kinds).
    """
    kind = kind if kind in _KINDS else kind_now(kind)
    kinds = _KINDS if kind in _KINDS else record_kinds()
    if kind not in kinds:
        raise RecordError(f"no record class of kind {kind!r}; known: {', '.join(sorted(kinds))}")
    return kinds[kind]


def read_json(path: str | os.PathLike) -> Any:
    """The JSON value in the file ``path``: the one reader of record files (``load_record``, ``cugraphlab diff`` and
    ``show``). RecordError in one line when the file is missing, a directory, unreadable, not UTF-8 or not JSON
    (what the parser says, then where: ``Unterminated string starting at: line 1 column 9``)."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise RecordError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{name} is a directory, not a record file") from None
    except OSError as exc:
        raise RecordError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{name} is not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{name} is not JSON ({exc.msg}: line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise RecordError(f"{name} is not a record (JSON nested too deeply)") from None
    except ValueError:  # Python's limit on the digits of one integer (4300): no record holds such a number
        raise RecordError(f"{name} is not a record: it holds an integer of thousands of digits") from None


def load_record(source: str | os.PathLike | Mapping[str, Any]) -> Record:
    """A result record, read back: from a JSON file a command wrote (``--json``) or from the dict of one.

    Parameters
    ----------
    source : str, os.PathLike or dict
        A path to the JSON file, or the JSON object already read.

    Returns
    -------
    Record
        The Record subclass instance of its kind (a ``RunResult``, a ``MeasureResult``, ...), whose properties and
        report functions work as they did where it was made; no device needed.

    Raises
    ------
    RecordError
        In one line: the file is missing or not JSON, or not a cugraphlab record, or of a kind or schema this
        version cannot read.
    """
    if isinstance(source, Mapping):
        return record_from_dict(source)
    name = os.fspath(source)
    d = read_json(name)
    return record_from_dict(d, source=name)


def record_from_dict(d: Any, source: str = "record") -> Record:
    """The record ``d`` (a dict read from a record's JSON) as an object of its class.

    Parameters
    ----------
    d : dict
        The JSON object.
    source : str
        How to name it in an error (a file name).

    Returns
    -------
    Record
        The Record subclass instance of its kind.

    Raises
    ------
    RecordError
        ``d`` is not a cugraphlab record, has a kind no class answers to, another schema than the class reads, or
        lacks a field the class needs.
    """
    check_record(d, source)
    cls = record_class(d["kind"])
    if "schema" in d:
        check_record(d, source, kind=cls.KIND, schema=cls.SCHEMA)
    own = cls.__dict__.get("from_dict")
    try:
        return cls.from_dict(dict(d)) if own is not None else rebuild_dataclass(cls, d)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:  # a field missing or reshaped
        raise RecordError(f"{source} ({d['kind']}) cannot be rebuilt: {shape_words(exc)}") from exc


def shape_words(exc: BaseException) -> str:
    """Why a record's fields could not be read, in words rather than Python's (``StackRow.__init__() missing 3
    required positional arguments: 'a', 'b' and 'c'`` -> ``its rows lack the fields 'a', 'b' and 'c'``)."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    m = re.search(r"(\w+)\.__init__\(\) missing \d+ required (?:positional |keyword-only )?arguments?: (.+)$", text)
    if m:
        return f"the field(s) {m.group(2)} are missing (written by another version?)"
    m = re.search(r"(\w+)\.__init__\(\) got an unexpected keyword argument (.+)$", text)
    if m:
        return f"a part of it has a field {m.group(2)} this version does not know"
    if isinstance(exc, KeyError):
        return f"it lacks the field {text}"
    return "a field holds another shape than this version reads (a list, an object, a number or text)"


def rebuild_dataclass(cls: type, d: Mapping[str, Any]) -> Any:
    """``cls(**fields)`` from the plain dict ``d``, each field converted by its type hint (keys that are not
    fields are ignored; a missing required field raises TypeError)."""
    hints = typing.get_type_hints(cls)
    kwargs = {f.name: _value(hints.get(f.name, Any), d[f.name])
              for f in dataclasses.fields(cls) if f.init and f.name in d}
    return cls(**kwargs)


def _value(tp: Any, v: Any) -> Any:
    if v is None:
        return None
    if tp is Summary:
        return Summary.from_dict(v)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and isinstance(v, Mapping):
        return rebuild_dataclass(tp, v)
    origin = typing.get_origin(tp)
    if origin is list and isinstance(v, list):
        args = typing.get_args(tp)
        return [_value(args[0] if args else Any, x) for x in v]
    if origin is dict and isinstance(v, Mapping):  # dict[str, Summary]: the update record's costs
        args = typing.get_args(tp)
        return {k: _value(args[1] if len(args) == 2 else Any, x) for k, x in v.items()}
    if origin is typing.Union or origin is types.UnionType:
        for arg in typing.get_args(tp):
            if arg is not type(None) and (arg is Summary or dataclasses.is_dataclass(arg)
                                          or typing.get_origin(arg) is list):
                return _value(arg, v)
    return v
