"""A result record back from its JSON: the Record subclass of its kind, rebuilt field by field.

A record written on a GPU machine (``to_dict()`` -> ``report.files.write_json``) can be read on any machine and
handed to the same ``report`` functions that printed it there, so that a notebook or a CI job without a GPU shows
the committed H200 tables and figures::

    d = report.files.read_json("benchmarks/results/.../2026-12-01_H200_memnodes.json")
    result = rebuild.record_from_dict(d)           # a MemnodesResult, its properties and methods working
    print(report.memnodes.render_memnodes(result))

How: ``record_class(kind)`` finds the subclass of ``records.Record`` whose ``KIND`` is ``d["kind"]`` (the bench
modules that define records are imported first); a class with its own ``from_dict`` (``CompareResult``) rebuilds
itself; any other is rebuilt from its dataclass fields and their type hints: a ``Summary`` through
``Summary.from_dict``, a nested dataclass (a row) recursively, ``list[X]`` item by item, anything else as it is.
Keys a record derives on writing (``verified``, ``goals`` ...) are not fields and are left out: the rebuilt
object computes them again. No device, no driver.
"""
from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from typing import Any, Mapping

from .records import Record, RecordError, load_record
from .stats import Summary

__all__ = ["record_from_dict", "record_class", "rebuild_dataclass", "RECORD_MODULES"]

#: The bench modules that define record classes (imported before a kind is looked up).
RECORD_MODULES = ("compare.records", "devlaunch", "diff", "doctor", "floor", "memnodes", "nodes", "run", "scaling",
                  "switch", "conditional", "pdl", "update", "latency", "timeline", "sweep", "launch_modes")


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out


def record_class(kind: str) -> type:
    """The Record subclass whose KIND is ``kind``; RecordError (one line, listing the known kinds) when none is."""
    for name in RECORD_MODULES:
        try:
            importlib.import_module(f"{__package__}.{name}")
        except ImportError:  # a module that needs an optional dependency: its records are not rebuildable here
            continue
    by_kind = {c.KIND: c for c in _subclasses(Record)}
    if kind not in by_kind:
        raise RecordError(f"no record class of kind {kind!r}; known: {', '.join(sorted(by_kind))}")
    return by_kind[kind]


def record_from_dict(d: Any, source: str = "record") -> Record:
    """The record ``d`` (a dict read from a record's JSON) as an object of its class.

    Parameters: ``d``: the JSON object; ``source``: how to name it in an error (a file name).
    Returns: the Record subclass instance. Raises RecordError when ``d`` is not a cugraphlab record, has a
    kind no class answers to, another schema than the class reads, or lacks a field the class needs.
    """
    load_record(d, source)
    cls = record_class(d["kind"])
    if "schema" in d:
        load_record(d, source, kind=cls.KIND, schema=cls.SCHEMA)
    own = cls.__dict__.get("from_dict")
    if own is not None:
        return cls.from_dict(dict(d))
    try:
        return rebuild_dataclass(cls, d)
    except (TypeError, KeyError, ValueError) as exc:
        raise RecordError(f"{source} ({d['kind']}) cannot be rebuilt: {exc}") from exc


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
    if origin is typing.Union or origin is types.UnionType:
        for arg in typing.get_args(tp):
            if arg is not type(None) and (arg is Summary or dataclasses.is_dataclass(arg)
                                          or typing.get_origin(arg) is list):
                return _value(arg, v)
    return v
