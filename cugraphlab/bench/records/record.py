"""One record shape for every measurement, and the clock descriptions, once.

Every command's result is a ``Record``: its ``kind`` (``"cugraphlab.<command>"``: the rule is in ``names``), a ``schema`` version, the
``config`` it ran with, the ``env`` it ran on (``bench.records.environment.collect``: GPU, driver, packages, commit; the
measurement fills it, never the CLI), the ``clocks`` its figures come from (short name -> description, from
``CLOCKS``), and ``samples``: raw samples per row label (bounded by ``MAX_SAMPLES``), so that two records can be
compared row by row later (``cugraphlab diff``) without re-running anything.

``to_dict()`` gives plain JSON types (``core.files.write_json`` writes it); ``check_record(d)`` checks the kind and
the schema of a dict read back and says in one line what is wrong (``RecordError``, exit 2 in the CLI).
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Mapping

from ...core.errors import InvalidArgumentError
from .names import kind_now

__all__ = ["CLOCKS", "clocks", "Record", "RecordError", "MAX_SAMPLES", "check_record", "bounded"]

#: Every clock a figure of this package comes from; records name them by these keys.
CLOCKS: dict[str, str] = {
    "wall": "perf_counter_ns (host wall clock, from before the first launch until the end event's sync returns)",
    "device": "cuEventElapsedTime (CUDA events recorded on the stream around the same loop)",
    "host_call": "perf_counter_ns around K calls, divided by K (host)",
    "held": ("cuEventElapsedTime around K calls queued behind the hold kernel, then released, divided by K (device: "
             "the GPU's own time per call, no host gap)"),
    "cold": ("cuEventElapsedTime around one call after an L2 flush, queued behind the hold kernel (device: one "
             "call's GPU time, cold L2)"),
    "host_api": "perf_counter_ns around each driver call (host)",
    "globaltimer": "%globaltimer read by the kernels at their start and end (ns, one clock per GPU)",
    "sm_clock": "clock64 read by a probe kernel beside %globaltimer (SM cycles per ns: the SM clock)",
    "copy": "cuEventElapsedTime around back-to-back cuMemcpyDtoDAsync copies (device)",
    "host_monotonic": ("perf_counter_ns (host, CLOCK_MONOTONIC shared by all processes): each worker's loop from "
                       "before its first launch until its stream's sync returns"),
}

#: At most this many raw samples are kept per row (evenly thinned beyond), so records stay small.
MAX_SAMPLES = 2000


def clocks(*names: str) -> dict[str, str]:
    """The ``clocks`` entry of a record using these clocks (KeyError for an unknown name: a typo is a bug)."""
    return {n: CLOCKS[n] for n in names}


def bounded(values: Iterable[float], limit: int = MAX_SAMPLES) -> list[float]:
    """``values`` as floats, thinned evenly to at most ``limit`` (order kept; non-finite values dropped)."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if len(v) <= limit:
        return v
    step = len(v) / limit
    return [v[int(i * step)] for i in range(limit)]


#: kind -> Record subclass, filled as the classes are defined (``Record.__init_subclass__``)
_KINDS: dict[str, type] = {}


class RecordError(InvalidArgumentError):
    """A record file that is not what the command needs (another kind, another schema, not a record)."""


@dataclass(kw_only=True)
class Record:
    """Base of every result record. Subclasses set ``KIND`` (and bump ``SCHEMA`` when their shape changes)."""

    KIND: ClassVar[str] = "cugraphlab.record"
    SCHEMA: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs):
        """Every subclass with a KIND of its own joins the one registry of record kinds (``records.kinds``)."""
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("KIND")
        if kind is None:
            return
        other = _KINDS.get(kind)
        if other is not None and other.__qualname__ != cls.__qualname__:
            raise TypeError(f"record kind {kind!r} is defined twice: {other.__module__}.{other.__qualname__} "
                            f"and {cls.__module__}.{cls.__qualname__}")
        _KINDS[kind] = cls

    config: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    clocks: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def schema(self) -> int:
        return self.SCHEMA

    def keep_samples(self, label: str, values: Iterable[float], unit: str = "us", clock: str | None = None) -> None:
        """Keep the raw samples of one row (bounded), with their unit and clock key."""
        entry: dict[str, Any] = {"unit": unit, "values": bounded(values)}
        if clock is not None:
            entry["clock"] = clock
        self.samples[label] = entry

    def to_dict(self) -> dict:
        """Plain types, ``kind`` and ``schema`` first; nested records and summaries through their ``to_dict``."""
        out: dict[str, Any] = {"kind": self.KIND, "schema": self.SCHEMA}
        for f in dataclasses.fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        out.update(self._extra_dict())
        return out

    def _repr_html_(self) -> str:
        """A notebook shows a record as a table of its rows and summaries, then config, clocks and environment
        (``bench.records.html``; a subclass may define ``_html_table() -> (headers, rows)`` for its main table)."""
        from .html import record_html

        return record_html(self)

    def _extra_dict(self) -> dict:
        """Derived values a subclass adds to its JSON (properties people read in the file)."""
        return {}

    @classmethod
    def check(cls, d: Mapping[str, Any], source: str = "record") -> Mapping[str, Any]:
        """``d`` if it is a record of this class's kind and schema, else RecordError naming what it is."""
        return check_record(d, source, kind=cls.KIND, schema=cls.SCHEMA)


def _plain(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        to_dict = getattr(v, "to_dict", None)
        return to_dict() if callable(to_dict) else {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def schema_words(got: Any) -> str:
    """A record's ``schema`` field in words: ``schema 1``, ``no schema``, ``a schema written as "1" (not a number)``."""
    if got is None:
        return "no schema"
    if isinstance(got, int) and not isinstance(got, bool):
        return f"schema {got}"
    return f"a schema written as {json.dumps(got)[:40]} (not a whole number)"


def check_record(d: Any, source: str = "record", *, kind: str | None = None,
                schema: int | None = None) -> Mapping[str, Any]:
    """Check that ``d`` (a JSON object read back) is a cugraphlab record, of ``kind`` and ``schema`` if given."""
    if not isinstance(d, Mapping) or not isinstance(d.get("kind"), str):
        raise RecordError(f"{source} is not a cugraphlab record (no 'kind' field)")
    if not d["kind"].startswith("cugraphlab."):
        raise RecordError(f"{source} is a {d['kind']!r} record, not one of cugraphlab's")
    if kind is not None and kind_now(d["kind"]) != kind_now(kind):  # an old name reads as its name now (names.py)
        raise RecordError(f"{source} is a {d['kind']} record, not {kind}")
    got = d.get("schema")
    if schema is not None and got != schema:
        raise RecordError(f"{source} has {schema_words(got)} of {d['kind']}; this cugraphlab reads schema {schema}")
    return d
