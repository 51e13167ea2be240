"""``cugraphlab diff``: two records of one command compared row by row, from the raw samples they keep.

The steps, in order:

1. ``read_record_file(path)``: the file read as JSON, refused in one line (``records.RecordError``, an
   InvalidArgumentError: exit 2 in the CLI) when it cannot be read or is not JSON.
2. ``diff_records(a, b)`` checks both: each a cugraphlab record (``records.check_record``) with a ``schema`` (records
   made before schema 1 kept no raw samples and are refused: re-run the command), B of A's kind and schema, neither
   newer than this cugraphlab's class for that kind (where that class is loaded), and a ``samples`` block of the
   shape ``Record.keep_samples`` writes.
3. Rows are matched by sample label; rows only in one record are listed as such. Per row (``intervals``): the
   ratio of medians B/A with a bootstrap interval, the Mann-Whitney p-value, the verdict SAME / FASTER / SLOWER /
   AMBIGUOUS against ``threshold``, and any two-mode split. Time units are converted to A's (ns, us, ms, s); other
   units must match. Samples of different clocks are not compared (AMBIGUOUS, saying so).
4. The environments side by side (GPU, driver, packages, commit, host) and the configs' differing keys, each
   difference marked; ``counts`` per verdict and the ``worst`` row.

The result is a ``DiffResult`` record (``KIND = "cugraphlab.diff"``); ``report.diff`` renders and plots it.
"""
from __future__ import annotations

import json
import math
import os
import zlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

import numpy as np

from ..core.errors import InvalidArgumentError
from .stats import intervals as iv
from .records.record import Record, RecordError, bounded, check_record

__all__ = ["DiffRow", "EnvRow", "DiffResult", "diff_records", "read_record_file", "parse_threshold", "FAIL_ON",
           "ENV_COLUMNS"]

#: What ``--fail-on`` accepts and which verdicts each one fails on (exit 1). AMBIGUOUS fails none: it shows no change.
FAIL_ON: dict[str, tuple[str, ...]] = {"slower": (iv.SLOWER,), "faster": (iv.FASTER,),
                                       "any-change": (iv.SLOWER, iv.FASTER)}

# The order rows sort in for ``worst``: a slowdown first, then what could not be told, then a speed-up.
_SEVERITY = {iv.SLOWER: 3, iv.AMBIGUOUS: 2, iv.FASTER: 1, iv.SAME: 0}


def _get(env: Mapping, *path: str):
    v: Any = env
    for k in path:
        if not isinstance(v, Mapping):
            return None
        v = v.get(k)
    return v


#: The environment columns shown side by side: name -> path into ``Record.env`` (``bench.environment.collect``).
ENV_COLUMNS: dict[str, tuple[str, ...]] = {
    "GPU": ("gpu", "name"),
    "compute capability": ("gpu", "compute_capability"),
    "driver release": ("driver", "release"),
    "driver CUDA": ("driver", "cuda"),
    "cuda-bindings": ("packages", "cuda-bindings"),
    "NVRTC": ("packages", "nvrtc"),
    "numpy": ("packages", "numpy"),
    "python": ("packages", "python"),
    "cugraphlab": ("packages", "cugraphlab"),
    "commit": ("commit",),
    "host": ("host",),
}


@dataclass
class EnvRow:
    """One environment (or config) entry of A and B; ``differs`` when they are not equal."""

    name: str
    a: Any
    b: Any
    differs: bool


@dataclass
class DiffRow:
    """One row label present in both records, compared (see ``intervals.compare_samples``).

    ``ratio`` is B/A in the row's own unit (for a rate unit, > 1 means B is faster); ``slowdown`` how many times
    longer B takes (B/A for time, A/B for a rate; NaN when the unit says neither). ``low``/``high``: the interval
    of ``ratio``. ``modes_a``/``modes_b``: [low, high, n_low, n_high] of a two-cluster split, or None.
    """

    label: str
    unit: str
    clock_a: str | None
    clock_b: str | None
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    ratio: float
    low: float
    high: float
    p_value: float
    verdict: str
    reason: str
    direction: str | None
    slowdown: float
    modes_a: list | None = None
    modes_b: list | None = None


@dataclass(kw_only=True)
class DiffResult(Record):
    """Two records compared: ``rows`` (one DiffRow per shared label), ``only_a``/``only_b`` (labels on one side),
    ``environment`` and ``config_changes`` (EnvRows), the compared ``compared_kind`` and ``sources``."""

    KIND: ClassVar[str] = "cugraphlab.diff"

    compared_kind: str
    compared_schema: int
    sources: dict = field(default_factory=dict)
    rows: list[DiffRow] = field(default_factory=list)  # typed, so that load_record rebuilds them as DiffRows
    only_a: list = field(default_factory=list)
    only_b: list = field(default_factory=list)
    environment: list[EnvRow] = field(default_factory=list)
    config_changes: list[EnvRow] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """How many rows got each verdict (every verdict present, 0 where none)."""
        out = {v: 0 for v in iv.VERDICTS}
        for r in self.rows:
            out[r.verdict] += 1
        return out

    @property
    def worst(self) -> dict | None:
        """The worst row: the most severe verdict (SLOWER > AMBIGUOUS > FASTER > SAME), then the largest slowdown."""
        if not self.rows:
            return None

        def key(r: DiffRow):
            s = r.slowdown if math.isfinite(r.slowdown) else 0.0
            return _SEVERITY[r.verdict], s

        r = max(self.rows, key=key)
        return {"label": r.label, "verdict": r.verdict, "ratio": r.ratio, "slowdown": r.slowdown}

    def fails(self, fail_on: str | None) -> bool:
        """Whether a row has a verdict that ``--fail-on fail_on`` fails on (None: never)."""
        if fail_on is None:
            return False
        verdicts = FAIL_ON[fail_on]
        return any(r.verdict in verdicts for r in self.rows)

    def _extra_dict(self) -> dict:
        return {"counts": self.counts, "worst": self.worst}


# ------------------------------------------------------------------------------------------------------- inputs

def parse_threshold(text: Any) -> float:
    """A threshold as a fraction: ``"5%"`` or ``"0.05"`` (or a float) -> 0.05.

    Refused (InvalidArgumentError, one line): not a number, <= 0, above 100%, or a bare number >= 1 (``5`` could
    mean 5% or a factor of 6: write ``5%`` or ``0.05``).
    """
    s = str(text).strip()
    pct = s.endswith("%")
    try:
        v = float(s[:-1].strip() if pct else s)
    except ValueError:
        raise InvalidArgumentError(f"threshold must be a fraction (0.05) or a percentage (5%), got {text!r}") from None
    if not math.isfinite(v):
        raise InvalidArgumentError(f"threshold must be a finite number > 0 (a fraction like 0.05 or a percentage "
                                   f"like 5%), got {text!r}")
    if v <= 0:
        raise InvalidArgumentError(f"threshold must be > 0, got {text!r}")
    if pct:
        v /= 100.0
    elif v >= 1:
        raise InvalidArgumentError(f"threshold {s} is ambiguous: write {s}% for a percentage or a fraction like 0.05")
    if v > 1:
        raise InvalidArgumentError(f"threshold must be at most 100%, got {text!r}")
    return v


def read_record_file(path: str | os.PathLike) -> dict:
    """The JSON object in ``path``; RecordError in one line when it cannot be read or is not JSON.

    Only reading and parsing: ``diff_records`` checks that it is a record.
    """
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise RecordError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{name} is a directory, not a record file") from None
    except OSError as e:
        raise RecordError(f"{name}: cannot read ({e.strerror or e})") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{name} is not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{name} is not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise RecordError(f"{name} is not a record (JSON nested too deeply)") from None


def _record_class(kind: str) -> type[Record] | None:
    """The loaded Record subclass of ``kind`` (None when no loaded class has it)."""
    stack, seen = list(Record.__subclasses__()), set()
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if getattr(cls, "KIND", None) == kind:
            return cls
        stack.extend(cls.__subclasses__())
    return None


def _check_record(d: Any, source: str) -> Mapping[str, Any]:
    d = check_record(d, source)
    schema = d.get("schema")
    if schema is None:
        raise RecordError(f"{source} ({d['kind']}) has no raw samples: made before schema 1; re-run the command")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise RecordError(f"{source} has schema {schema!r}, not a version number this cugraphlab reads")
    cls = _record_class(d["kind"])
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
    return d


def _values(entry: Mapping) -> np.ndarray:
    # A record written by keep_samples holds at most MAX_SAMPLES; a longer hand-made one is thinned the same way.
    return np.array(bounded(v for v in entry["values"] if v is not None), dtype=float)


# --------------------------------------------------------------------------------------------------------- rows

def _row_seed(seed: int, label: str) -> np.random.Generator:
    # One stream per row, from the seed and the label: a row's interval does not depend on the other rows.
    return np.random.default_rng([int(seed), zlib.crc32(label.encode("utf-8"))])


def _compare_row(label: str, ea: Mapping, eb: Mapping, *, threshold: float, seed: int, resamples: int,
                 confidence: float, alpha: float) -> DiffRow:
    unit_a, unit_b = ea["unit"], eb["unit"]
    xa, xb = _values(ea), _values(eb)
    clock_a, clock_b = ea.get("clock"), eb.get("clock")
    problem = None
    converted = iv.to_unit(xb, unit_b, unit_a)
    if converted is None:
        problem = f"units differ: A in {unit_a}, B in {unit_b}"
    else:
        xb = converted
    if problem is None and clock_a != clock_b:
        problem = f"clocks differ: A from {clock_a}, B from {clock_b}"
    ga, gb = ea.get("groups"), eb.get("groups")
    c = iv.compare_samples(xa, xb, unit=unit_a, threshold=threshold, seed=_row_seed(seed, label),
                           resamples=resamples, confidence=confidence, alpha=alpha,
                           groups_a=ga if ga is not None and len(ga) == len(xa) else None,
                           groups_b=gb if gb is not None and len(gb) == len(xb) else None)
    verdict, reason = c.verdict, c.reason
    grouped = [f"{side}: {len(set(g))} processes/contexts" for side, g in (("A", ga), ("B", gb))
               if g is not None and len(set(g)) >= 2]
    if grouped:
        reason += " (interval resampled by process/context: " + ", ".join(grouped) + ")"
    if problem is not None:
        verdict, reason = iv.AMBIGUOUS, f"{problem}: not compared"
    i = c.interval
    return DiffRow(label=label, unit=unit_a, clock_a=clock_a, clock_b=clock_b, n_a=i.n_a, n_b=i.n_b,
                   median_a=i.median_a, median_b=i.median_b, ratio=i.ratio, low=i.low, high=i.high,
                   p_value=c.test.p_value, verdict=verdict, reason=reason, direction=c.direction,
                   slowdown=c.slowdown, modes_a=list(c.modes_a) if c.modes_a else None,
                   modes_b=list(c.modes_b) if c.modes_b else None)


def _environment(env_a: Mapping, env_b: Mapping) -> list[EnvRow]:
    rows = []
    for name, path in ENV_COLUMNS.items():
        a, b = _get(env_a, *path), _get(env_b, *path)
        rows.append(EnvRow(name, a, b, a != b))
    return rows


def _config_changes(cfg_a: Any, cfg_b: Any) -> list[EnvRow]:
    if not isinstance(cfg_a, Mapping) or not isinstance(cfg_b, Mapping):
        return [] if cfg_a == cfg_b else [EnvRow("config", cfg_a, cfg_b, True)]
    keys = list(dict.fromkeys([*cfg_a, *cfg_b]))
    return [EnvRow(k, cfg_a.get(k), cfg_b.get(k), True) for k in keys if cfg_a.get(k) != cfg_b.get(k)]


def diff_records(a: Any, b: Any, threshold: float = 0.05, seed: int = 0, *, a_name: str = "A", b_name: str = "B",
                 resamples: int = iv.RESAMPLES, confidence: float = iv.CONFIDENCE, alpha: float = iv.ALPHA,
                 env: dict | None = None) -> DiffResult:
    """Compare record ``b`` against record ``a`` row by row.

    Parameters: ``a``, ``b`` two records as dicts (read back from JSON, or ``Record.to_dict()``); ``threshold`` the
    fraction a change must exceed to count (0.05: 5%); ``seed`` of the bootstrap (an int >= 0); ``a_name``,
    ``b_name`` how messages name them (file paths); ``resamples``, ``confidence``, ``alpha`` the statistics'
    settings (``intervals``); ``env`` the environment of the diff itself (default: ``environment.collect()``).
    Returns a DiffResult. Raises RecordError (one line) when either is not a record of a kind and schema this code
    reads, or when the two differ in kind or schema; InvalidArgumentError for a bad threshold or seed.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not (
            math.isfinite(threshold) and 0 < threshold <= 1):
        raise InvalidArgumentError(f"threshold must be a fraction in (0, 1], got {threshold!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(f"seed must be an integer >= 0, got {seed!r}")
    ra = _check_record(a, a_name)
    check_record(b, b_name, kind=ra["kind"])
    rb = _check_record(b, b_name)
    if rb["schema"] != ra["schema"]:
        raise RecordError(f"{a_name} has schema {ra['schema']} of {ra['kind']} and {b_name} schema {rb['schema']}: "
                          "records of two schemas are not compared; re-run the older command")
    sa, sb = ra["samples"], rb["samples"]
    if not sa and not sb:
        raise RecordError(f"neither {a_name} nor {b_name} keeps raw samples (their 'samples' blocks are empty)")
    shared = [k for k in sa if k in sb]
    rows = [_compare_row(k, sa[k], sb[k], threshold=float(threshold), seed=int(seed), resamples=resamples,
                         confidence=confidence, alpha=alpha) for k in shared]
    if env is None:
        from .records.environment import collect

        env = collect()
    env_a, env_b = ra.get("env") or {}, rb.get("env") or {}
    clocks = {**(ra.get("clocks") or {}), **(rb.get("clocks") or {})}
    return DiffResult(
        config={"threshold": float(threshold), "seed": int(seed), "resamples": int(resamples),
                "confidence": confidence, "alpha": alpha, "min_samples": iv.MIN_SAMPLES,
                "interval": "percentile bootstrap of the ratio of medians, each side resampled on its own",
                "test": "Mann-Whitney U, two-sided, normal approximation with tie and continuity corrections"},
        env=env, clocks=clocks, compared_kind=ra["kind"], compared_schema=ra["schema"],
        sources={"a": a_name, "b": b_name}, rows=rows,
        only_a=[k for k in sa if k not in sb], only_b=[k for k in sb if k not in sa],
        environment=_environment(env_a if isinstance(env_a, Mapping) else {},
                                 env_b if isinstance(env_b, Mapping) else {}),
        config_changes=_config_changes(ra.get("config"), rb.get("config")))
