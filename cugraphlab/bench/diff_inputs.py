"""What ``cugraphlab diff`` reads, and every reason it refuses a file, each in one line (``RecordError``).

* ``read_record_file(path)``: the JSON object in a file; an nvbench / cuda-bench result file becomes the record
  ``records.nvbench.nvbench_record`` makes of it (its raw samples read from the ``-bin`` folder beside it).
* ``check_measurement(d, source)``: a record whose rows can be judged: a cugraphlab record (or an nvbench one) with
  a schema this code reads and a ``samples`` block of raw samples, every sample a finite number, and for a time or
  a rate a positive one (zero is allowed on the GPU's own ``globaltimer`` clock, which ticks in whole steps).
  Records that cannot be judged say why: made before schema 1 (by an older cugraphlab command: re-run it), written
  by a benchmark script (a summary with no raw samples), a diff's own result (not a measurement), newer than this
  code.
* ``config_changes(a, b, ...)``: the configuration keys that differ; ``refuse_config`` turns the ones that change
  what a sample measures into a refusal naming them (``NEUTRAL_CONFIG`` keys and those the caller allows do not).
"""
from __future__ import annotations

import math
import os
from typing import Any, Iterable, Mapping

from .records.kinds import read_json
from .records.names import is_study_kind
from .records.nvbench import NVBENCH_KIND, is_nvbench, nvbench_record
from .records.record import RecordError, check_record
from .stats.intervals import unit_direction

__all__ = ["read_record_file", "as_record", "check_measurement", "NEUTRAL_CONFIG", "config_changes",
           "refuse_config", "is_foreign"]

#: Configuration keys that change how many samples a record holds, where it ran or how it was driven, not what one
#: sample measures: records differing only in these are compared (the difference is shown).
NEUTRAL_CONFIG = frozenset({
    "repeats", "chunks", "device", "seed", "samples", "first_samples", "latency_samples", "timeline_rows", "build",
    "header_search", "kept_samples", "max_samples", "pair_samples", "budget_s", "time_cap_s", "timeout_s", "rounds",
    "process", "processes", "paired_contexts", "held_rounds", "skipped", "points",
})


def read_record_file(path: str | os.PathLike) -> dict:
    """The JSON object in ``path`` (an nvbench file as its record); RecordError in one line when it cannot be read
    or is not JSON (``records.kinds.read_json``). Only reading and parsing: ``check_measurement`` says whether it
    can be judged."""
    name = os.fspath(path)
    d = read_json(name)
    return nvbench_record(d, name) if is_nvbench(d) else d


def as_record(d: Any) -> Any:
    """``d``, or the record of it when it is an nvbench JSON object read without its path."""
    return nvbench_record(d, None) if is_nvbench(d) else d


def is_foreign(d: Mapping) -> bool:
    """Whether ``d`` is another tool's record (nvbench), compared with cugraphlab's only row against row."""
    return d.get("kind") == NVBENCH_KIND


_walked = False
#: Where the kinds diff meets most are defined: imported first, so that judging them does not import every module
#: of the package (a third of a second of a ``cugraphlab diff``); any other kind walks them all (``record_kinds``).
_HOMES = {"cugraphlab.measure": "cugraphlab.bench.measure.result", "cugraphlab.run": "cugraphlab.bench.run",
          "cugraphlab.compare": "cugraphlab.bench.compare.records"}


def _kind_class(kind: str) -> type | None:
    """The Record subclass of ``kind`` in the one registry (``records.kinds``), or None; its module is imported
    (``_HOMES``) or else the package's modules (``record_kinds``, once), the first time a kind is not registered."""
    global _walked
    from .records.record import _KINDS

    if kind not in _KINDS and kind in _HOMES:
        import importlib

        importlib.import_module(_HOMES[kind])
    if kind not in _KINDS and not _walked:
        from .records.kinds import record_kinds

        record_kinds()
        _walked = True
    return _KINDS.get(kind)


def _unjudgeable(d: Mapping, source: str) -> str | None:
    """Why a record that checks as cugraphlab's cannot be judged at all, or None."""
    kind, schema = d["kind"], d.get("schema")
    if kind == "cugraphlab.diff":
        return (f"{source} is the result of a diff (cugraphlab.diff), not a measurement: diff compares two records "
                "a command wrote (--json)")
    if schema is not None:
        return None
    if _kind_class(kind) is not None:  # a Record class (a study's too, where its module is loaded) keeps samples
        return (f"{source} ({kind}) was made before schema 1, when cugraphlab kept no raw samples: re-run the "
                "command with --json")
    if is_study_kind(kind):
        return (f"{source} ({kind}) is a study or benchmark script's summary: it keeps no raw samples per row, so there is "
                "nothing to judge (the commands' --json records keep them)")
    return f"{source} ({kind}) has no schema and no raw samples: not a record diff can judge"


def _check_values(source: str, label: str, entry: Mapping) -> None:
    values = [v for v in entry["values"] if v is not None]
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise RecordError(f"{source}: samples row {label!r} holds {len(bad)} NaN or infinite value(s): a sample is "
                          "a finite measurement")
    if unit_direction(entry["unit"]) is None:
        return
    zero_ok = entry.get("clock") == "globaltimer"  # whole ticks of the GPU's timer: a gap of 0 is a reading
    low = [v for v in values if v < 0 or (v == 0 and not zero_ok)]
    if low:
        raise RecordError(f"{source}: samples row {label!r} holds {len(low)} value(s) <= 0 (e.g. {low[0]:g} "
                          f"{entry['unit']}): a time or a rate is positive")


def check_measurement(d: Any, source: str, *, kind: str | None = None) -> Mapping[str, Any]:
    """``d`` if it is a record whose rows diff can judge (module docstring), else RecordError saying why.
    ``kind``: the kind it must be (B must be A's), unless either is another tool's record."""
    if isinstance(d, Mapping) and is_foreign(d):
        schema = d.get("schema")
    else:
        d = check_record(d, source, kind=kind)
        why = _unjudgeable(d, source)
        if why:
            raise RecordError(why)
        schema = d["schema"]
        if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
            from .records.record import schema_words

            raise RecordError(f"{source} has {schema_words(schema)}, not a version number this cugraphlab reads")
        cls = _kind_class(d["kind"])
        if cls is not None and schema > cls.SCHEMA:
            raise RecordError(f"{source} has schema {schema} of {d['kind']}, newer than this cugraphlab reads "
                              f"({cls.SCHEMA}): update cugraphlab")
    samples = d.get("samples")
    if not isinstance(samples, Mapping):
        raise RecordError(f"{source} has no 'samples' block of raw samples per row")
    for label, entry in samples.items():
        if not (isinstance(entry, Mapping) and isinstance(entry.get("values"), list)
                and isinstance(entry.get("unit"), str)):
            raise RecordError(f"{source}: samples row {label!r} is not {{'unit': str, 'values': [numbers]}}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) or v is None for v in entry["values"]):
            raise RecordError(f"{source}: samples row {label!r} holds values that are not numbers")
        _check_values(source, label, entry)
    return d


def config_changes(cfg_a: Any, cfg_b: Any) -> list[tuple[str, Any, Any]]:
    """(key, A's value, B's value) for every configuration key whose values differ."""
    if not isinstance(cfg_a, Mapping) or not isinstance(cfg_b, Mapping):
        return [] if cfg_a == cfg_b else [("config", cfg_a, cfg_b)]
    keys = list(dict.fromkeys([*cfg_a, *cfg_b]))
    return [(k, cfg_a.get(k), cfg_b.get(k)) for k in keys if cfg_a.get(k) != cfg_b.get(k)]


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def refuse_config(changes: Iterable[tuple[str, Any, Any]], kind: str, allow: Iterable[str] | str = (),
                  a_name: str = "A", b_name: str = "B") -> None:
    """RecordError naming every configuration key that differs and changes what a sample measures (not in
    ``NEUTRAL_CONFIG`` nor ``allow``; ``allow="all"`` allows every key)."""
    if allow == "all":
        return
    allowed = NEUTRAL_CONFIG | set(allow)
    differ = [(k, a, b) for k, a, b in changes if k not in allowed]
    if differ:
        what = "; ".join(f"{k}: {_short(a)} -> {_short(b)}" for k, a, b in differ)
        raise RecordError(f"{a_name} and {b_name} are {kind} records of different configurations ({what}): their "
                          "rows measure different work; compare records of one configuration (or --allow-config "
                          + ",".join(k for k, _a, _b in differ) + ")")
