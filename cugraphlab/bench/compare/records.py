"""The records of ``cugraphlab compare``: one flat row per (stack, way, mode, size, round), and the whole result.

Rows are plain dataclasses (JSON and CSV ready through ``cugraphlab.core.files``); ``CompareResult.from_dict``
rebuilds a result from its JSON so it can be rendered or plotted again on a machine with no GPU.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

from ..records.record import Record, check_record, clocks

__all__ = ["StackRow", "CompareResult", "STATUSES"]
# ok: measured; unsupported: the stack has no such mode (the note says why); unavailable: the stack could not be
# imported or started; failed: it started but this mode raised, or its worker failed or hung.
STATUSES = ("ok", "unsupported", "unavailable", "failed")


@dataclass
class StackRow:
    """One mode of one way of one stack at one size in one round (one worker process).

    ``wall_*`` µs per repetition (a launch for ``launch``, a chain iteration otherwise) from the wall clock,
    ``device_*`` from CUDA events (None where the stack has no events); medians and p5-p95 over the repeats.
    ``mismatches`` counts elements that differ in bits from NumPy, summed over the repeats' checks.
    """

    stack: str
    way: str
    mode: str
    size: int
    round: int
    status: str = "ok"
    count: int = 0                 # launches (launch) or chain iterations per timed loop
    repeats: int = 0
    kernels: int | None = None     # kernels per repetition
    wall_us: float | None = None
    wall_p5: float | None = None
    wall_p95: float | None = None
    device_us: float | None = None
    device_p5: float | None = None
    device_p95: float | None = None
    same_cubin: bool = False       # launches cugraphlab's own NVRTC cubin
    checked: int = 0               # outputs compared with NumPy
    mismatches: int | None = None
    version: str = ""
    note: str = ""
    seconds: float | None = None   # the worker's wall time (the same for every row of one worker)
    wall_samples: list = field(default_factory=list, repr=False)  # raw wall µs of each repeat (moved to samples)

    @property
    def label(self) -> str:
        """The row's name across rounds: stack/way mode n=size (what ``samples`` and ``cugraphlab diff`` key on)."""
        return f"{self.stack}/{self.way} {self.mode} n={self.size}"

    @property
    def measured(self) -> bool:
        return self.status == "ok" and self.wall_us is not None

    @property
    def bit_exact(self) -> bool | None:
        if not self.measured or self.mismatches is None:
            return None
        return self.mismatches == 0


#: The modes whose figures the host sets (and with it the per-process launch mode); graph and fused rows are
#: device-bound and repeat within 1-2% between processes.
HOST_BOUND = ("launch", "eager")


def _size_mode(label: str) -> tuple[str, str]:
    """("1024", "launch") from "stack/way launch n=1024"."""
    head, _, size = label.rpartition(" n=")
    return size, head.rsplit(" ", 1)[-1]


#: Student's t, two-sided 95% (the 97.5% point), for 1..30 degrees of freedom; 1.96 beyond.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def student_t975(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


def paired_ratio_samples(paired: dict, size) -> dict:
    """From a paired section (``bench.paired.harness.PairedResult.to_dict()``): each way's µs per launch over the bare
    binding's in the same round, one value per round, grouped by context: rows "paired n=SIZE: WAY / bindings".
    Ratios measured beside their reference repeat across processes where absolute figures do not."""
    samples = (paired or {}).get("samples") or {}
    ref = (samples.get("bindings us/launch") or {}).get("values")
    if not ref:
        return {}
    groups: list = []
    for i, ctx in enumerate(paired.get("contexts") or []):
        groups += [i] * int(ctx.get("rounds") or 0)
    out = {}
    for label, entry in samples.items():
        way = label[:-len(" us/launch")] if label.endswith(" us/launch") and " held " not in label else None
        if way in (None, "bindings") or len(entry.get("values") or []) != len(ref):
            continue
        values = [w / r if r else None for w, r in zip(entry["values"], ref)]
        row = {"unit": "time ratio", "values": values, "clock": entry.get("clock", "host_call")}
        if len(groups) == len(values):
            row["groups"] = groups
        out[f"paired n={size}: {way} / bindings"] = row
    return out


@dataclass(kw_only=True)
class CompareResult(Record):
    """A comparison: its configuration, every row, the environment, the clocks and each stack's versions; raw wall
    samples per stack/way/mode/size, all rounds pooled."""

    KIND: ClassVar[str] = "cugraphlab.compare"

    rows: list[StackRow] = field(default_factory=list)
    versions: dict = field(default_factory=dict)  # stack -> {package: version, ...} as its worker saw them
    paired: dict | None = None  # the paired measurement (bench.paired.harness.PairedResult.to_dict()) of the ways that share

    def __post_init__(self) -> None:
        if not self.clocks:
            self.clocks = clocks("wall", "device")
        for r in self.rows:  # raw samples live in the record's samples, pooled over rounds (each value's round in
            if r.wall_samples:  # "groups"), not in each row
                entry = self.samples.setdefault(r.label, {"unit": "us", "values": [], "clock": "wall", "groups": []})
                entry["values"].extend(r.wall_samples)
                entry.setdefault("groups", []).extend([r.round] * len(r.wall_samples))
                r.wall_samples = []
        for size, p in (self.paired or {}).items():
            for label, entry in paired_ratio_samples(p, size).items():
                self.samples.setdefault(label, entry)

    @property
    def sizes(self) -> list[int]:
        return list(dict.fromkeys(r.size for r in self.rows))

    @property
    def rounds(self) -> list[int]:
        return sorted({r.round for r in self.rows})

    def rows_for(self, size: int | None = None, stack: str | None = None, mode: str | None = None) -> list[StackRow]:
        return [r for r in self.rows if (size is None or r.size == size) and (stack is None or r.stack == stack)
                and (mode is None or r.mode == mode)]

    @property
    def measured_rows(self) -> list[StackRow]:
        return [r for r in self.rows if r.measured]

    @property
    def ok(self) -> bool:
        """At least one row measured, and every measured row matched NumPy bit for bit, except rows whose note
        explains why they cannot (a result that measured nothing is never ok)."""
        measured = self.measured_rows
        return bool(measured) and all(r.mismatches == 0 for r in measured if "cannot be bit-exact" not in r.note)

    def interval(self, label: str, seed: int = 0, *, process_spread: bool = True):
        """The median of a line's raw samples (``label``: "stack/way mode n=size") with its 95% interval: a two-level
        bootstrap (rounds, i.e. processes, then repeats within each), widened (``process_spread``) to at least the
        between-process interval that ``process_spread(size, mode)`` pools over every line of that size and mode:
        ``paired_stats.Interval`` or None.

        Why widen: a launch figure has a mode set per process/context (docs/studies/launch-cost-modes.md), the same
        for every stack, and two rounds are two draws of it; a line whose two processes happened to agree would get a
        narrow interval from its own samples and be ranked ahead of lines it does not beat in the next run."""
        from ..stats.paired_stats import Interval, hierarchical_bootstrap

        entry = self.samples.get(label)
        if not entry or not entry.get("values"):
            return None
        values, groups = entry["values"], entry.get("groups") or [1] * len(entry["values"])
        by_round: dict = {}
        for v, g in zip(values, groups):
            by_round.setdefault(g, []).append(v)
        iv = hierarchical_bootstrap(list(by_round.values()), seed=seed)
        mode = _size_mode(label)[1]
        spread = self.process_spread() if process_spread and iv is not None and mode in HOST_BOUND else None
        if spread is None:
            return iv
        half = spread["t"] * spread["sigma"] / math.sqrt(len(by_round))
        lo, hi = iv.median * math.exp(-half), iv.median * math.exp(half)
        return Interval(iv.median, min(iv.lo, lo), max(iv.hi, hi), iv.n, iv.groups, iv.level)

    def process_spread(self, modes=None) -> dict | None:
        """The between-process spread of the host-bound lines (``modes``, default HOST_BOUND: launch and eager),
        pooled over every such line of every size (the mode is the process's, whatever the stack or size):
        ``sigma`` the standard deviation of log(round median) within a line, pooled over the lines with two rounds
        or more, ``df`` its degrees of freedom (the sum of rounds - 1), ``t`` Student's 97.5% point for them,
        ``lines``; None with fewer than two rounds. Computed once per record (every line's interval asks for it)."""
        modes = tuple(modes or HOST_BOUND)
        cache = self.__dict__.setdefault("_spreads", {})  # not a field: never serialized
        key = (modes, len(self.samples))
        if key not in cache:
            cache[key] = self._pooled_spread(modes)
        return cache[key]

    def _pooled_spread(self, modes: tuple) -> dict | None:
        keys = tuple(f" {m} n=" for m in modes)
        ss, df, lines = 0.0, 0, 0
        for label, entry in self.samples.items():
            if not any(k in label for k in keys) or "/" not in label or label.startswith("paired"):
                continue
            vals, groups = entry.get("values") or [], entry.get("groups") or []
            if len(vals) != len(groups):
                continue
            by_round: dict = {}
            for v, g in zip(vals, groups):
                if v is not None and v > 0:
                    by_round.setdefault(g, []).append(v)
            logs = [math.log(statistics.median(v)) for v in by_round.values() if v]
            if len(logs) < 2:
                continue
            mean = sum(logs) / len(logs)
            ss += sum((x - mean) ** 2 for x in logs)
            df += len(logs) - 1
            lines += 1
        if df < 1:
            return None
        return {"sigma": math.sqrt(ss / df), "df": df, "t": student_t975(df), "lines": lines}

    def failure_summary(self, limit: int = 3) -> str:
        """Why rows were not measured, most common reasons first (for the one line of a run that measured nothing)."""
        reasons: dict[str, int] = {}
        for r in self.rows:
            if not r.measured:
                reasons[f"{r.stack}: {r.note or r.status}"] = reasons.get(f"{r.stack}: {r.note or r.status}", 0) + 1
        top = sorted(reasons, key=lambda k: -reasons[k])[:limit]
        more = len(reasons) - len(top)
        return "; ".join(top) + (f"; and {more} more" if more > 0 else "") if top else "no rows"

    def csv_rows(self) -> list[dict]:
        return [{k: v for k, v in asdict(r).items() if k != "wall_samples"} for r in self.rows]

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["rows"] = self.csv_rows()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "CompareResult":
        """Rebuild from ``to_dict()`` output (a JSON file); unknown row keys are ignored. Records made before the
        record schema (no ``schema`` key) are read too, for re-rendering old results."""
        if "schema" in d:
            check_record(d, kind=cls.KIND, schema=cls.SCHEMA)
        names = {f.name for f in fields(StackRow)}
        rows = [StackRow(**{k: v for k, v in r.items() if k in names}) for r in d.get("rows", [])]
        return cls(config=dict(d.get("config") or {}), rows=rows, env=dict(d.get("env") or {}),
                   clocks=dict(d.get("clocks") or {}), versions=dict(d.get("versions") or {}),
                   samples=dict(d.get("samples") or {}), paired=d.get("paired"))
