"""``cugraphlab diff``: two records compared row by row, from the raw samples they keep.

The steps, in order:

1. ``read_record_file(path)`` (``diff_inputs``): the file read as JSON, refused in one line (``records.RecordError``,
   an InvalidArgumentError: exit 2 in the CLI) when it cannot be read or is not JSON. An nvbench / cuda-bench JSON
   file is read as the record ``records.nvbench`` makes of it (its cold GPU samples, from ``--jsonbin``).
2. ``diff_records(a, b)`` checks both (``diff_inputs.check_measurement``): records whose rows can be judged, B of A's
   kind and schema, of one configuration (keys that change what a sample measures must match; ``allow_config``
   lifts that), every sample finite (and positive for a time or a rate). Each refusal says why in one line: made
   before schema 1, a benchmark script's summary, a diff's own result, NaN or negative samples, what differs.
3. Rows are matched by sample label, and any ``pairs`` (label in A, label in B) besides: that is how a kernel timed
   by nvbench is compared with the same kernel timed by cugraphlab (their labels and clocks differ; a pair is
   compared anyway, saying so). Per row (``intervals``): the ratio of medians B/A with a bootstrap interval, the
   Mann-Whitney p-value, the verdict SAME / FASTER / SLOWER / AMBIGUOUS against ``threshold``, and any two-mode
   split; a row whose samples are the same on both sides (a record against itself) is SAME. Time units are
   converted to A's (ns, us, ms, s); other units must match. Unpaired rows of different clocks are not compared
   (AMBIGUOUS, saying so). Rows of two nvbench files also carry ``nvbench-compare``'s own verdict.
4. Which rows are judged (``judged_rows``, the one rule ``diff``, ``measure --compare-to`` and the pytest plugin
   share): by default (``judge="repeatable"``) only the rows of a measure record that repeat between processes,
   every row of any other record; ``judge="all"``: every row. A row not judged is still compared and shown, marked
   "(not judged: host rows move 30-40% between processes)"; ``--fail-on`` looks at judged rows only.
5. The environments side by side (GPU, driver, packages, commit, host, an injected delay) and the configs' differing
   keys; ``counts`` per verdict of the judged rows, the ``worst`` judged row, and ``notes`` (rows with too few
   samples, rows not judged, nothing judged).

Which rows of a measure record repeat between processes (``judge="repeatable"``): the absolute host, wall and
device µs of a launch move with the launch-cost mode the process landed in, by 30-40% between processes on the H200
(docs/studies/launch-cost-modes.md), which a verdict would read as a change of the code. Judged are:

* ``x ref`` rows (unit ``time ratio``, e.g. ``"eager: host / reference"``): a way's host cost over the bare launch
  timed in the same rounds, so the process's mode divides out;
* rows of the GPU's own clocks ``held`` and ``cold`` (``GPU_CLOCKS``: calls queued behind a hold kernel, no host
  gap inside the events), recognised by the row's clock name;
* device-bound rows: a way's ``"WAY: device"`` row where the median of its device µs per call is at least
  ``DEVICE_BOUND`` (2) times the median of the same way's host µs per call (``"WAY: host"``) in A or in B. Then the
  GPU sets the pace: the host queues calls at least twice as fast as the GPU runs them, so even a host 40% slower
  leaves the device time the kernels' own;
* rows compared on request (``pairs``).

The result is a ``DiffResult`` record (``KIND = "cugraphlab.diff"``); ``report.diff`` renders and plots it.
"""
from __future__ import annotations

import math
import os
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Mapping

import numpy as np

from ..core.errors import InvalidArgumentError
from .diff_inputs import as_record, check_measurement, config_changes, is_foreign, read_record_file, refuse_config
from .records.nvbench import nvbench_compare_status
from .records.record import Record, RecordError, bounded
from .stats import intervals as iv

__all__ = ["DiffRow", "EnvRow", "DiffResult", "diff_records", "read_record_file", "parse_threshold", "FAIL_ON",
           "ENV_COLUMNS", "OPTIONAL_ENV_COLUMNS", "JUDGE", "GPU_CLOCKS", "DEVICE_BOUND", "NOT_JUDGED", "judged_rows",
           "check_judge"]

#: What ``--fail-on`` accepts and which verdicts each one fails on (exit 1). AMBIGUOUS fails none: it shows no change.
FAIL_ON: dict[str, tuple[str, ...]] = {"slower": (iv.SLOWER,), "faster": (iv.FASTER,),
                                       "any-change": (iv.SLOWER, iv.FASTER)}

#: What ``judge=`` (``--judge``, the plugin's ``--cgl-judge``) accepts: the rows that repeat between processes
#: (default), or every row.
JUDGE = ("repeatable", "all")
#: Clocks of the GPU's own time per call, whose rows repeat between processes.
GPU_CLOCKS = ("held", "cold")
#: A way's device row is judged where its device µs per call is at least this many times its host µs per call.
DEVICE_BOUND = 2.0
#: How a row that is compared but not judged is marked.
NOT_JUDGED = "not judged: host rows move 30-40% between processes"
_MEASURE_KIND = "cugraphlab.measure"

# The order rows sort in for ``worst``: a slowdown first, then what could not be told, then a speed-up.
_SEVERITY = {iv.SLOWER: 3, iv.AMBIGUOUS: 2, iv.FASTER: 1, iv.SAME: 0}


def _get(env: Mapping, *path: str):
    v: Any = env
    for k in path:
        if not isinstance(v, Mapping):
            return None
        v = v.get(k)
    return v


#: The environment columns shown side by side: name -> path into ``Record.env`` (``bench.records.environment.collect``).
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
    "nvbench": ("packages", "nvbench"),
    "injected delay (ns)": ("injected", "launch_delay_ns"),
}
#: Columns shown only where a side has a value (another tool's version, the runners' test hook).
OPTIONAL_ENV_COLUMNS = ("nvbench", "injected delay (ns)")


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
    ``label_b``: B's label where the row is a pair of two labels (else None: the same label on both sides);
    ``nvbench``: what nvbench-compare says of the row, where both sides are nvbench's. ``judged``: whether the
    row's verdict counts (``judged_rows``); a row not judged is shown, its verdict does not fail ``--fail-on``.
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
    label_b: str | None = None
    nvbench: str | None = None
    judged: bool = True

    @property
    def too_few(self) -> bool:
        """Fewer than ``MIN_SAMPLES`` on a side, so no verdict (identical samples on both sides are SAME anyway)."""
        return min(self.n_a, self.n_b) < iv.MIN_SAMPLES and self.verdict == iv.AMBIGUOUS


@dataclass(kw_only=True)
class DiffResult(Record):
    """Two records compared: ``rows`` (one DiffRow per shared label), ``only_a``/``only_b`` (labels on one side),
    ``environment`` and ``config_changes`` (EnvRows), the compared ``compared_kind`` and ``sources``."""

    KIND: ClassVar[str] = "cugraphlab.diff"

    compared_kind: str
    compared_schema: int
    compared_kind_b: str | None = None
    sources: dict = field(default_factory=dict)
    rows: list[DiffRow] = field(default_factory=list)  # typed, so that load_record rebuilds them as DiffRows
    only_a: list = field(default_factory=list)
    only_b: list = field(default_factory=list)
    environment: list[EnvRow] = field(default_factory=list)
    config_changes: list[EnvRow] = field(default_factory=list)

    @property
    def rows_judged(self) -> list[DiffRow]:
        """The rows whose verdicts count (``judged_rows``: by default the ones that repeat between processes)."""
        return [r for r in self.rows if r.judged]

    @property
    def counts(self) -> dict[str, int]:
        """How many judged rows got each verdict (every verdict present, 0 where none)."""
        out = {v: 0 for v in iv.VERDICTS}
        for r in self.rows_judged:
            out[r.verdict] += 1
        return out

    @property
    def not_judged(self) -> int:
        """Rows compared and shown whose verdicts do not count."""
        return len(self.rows) - len(self.rows_judged)

    @property
    def worst(self) -> dict | None:
        """The worst judged row: the most severe verdict (SLOWER > AMBIGUOUS > FASTER > SAME), then the largest
        slowdown (None: no row judged)."""
        rows = self.rows_judged
        if not rows:
            return None

        def key(r: DiffRow):
            s = r.slowdown if math.isfinite(r.slowdown) else 0.0
            return _SEVERITY[r.verdict], s

        r = max(rows, key=key)
        return {"label": r.label, "verdict": r.verdict, "ratio": r.ratio, "slowdown": r.slowdown}

    @property
    def judged(self) -> int:
        """Judged rows with a verdict (SAME, FASTER or SLOWER); AMBIGUOUS rows were compared but could not tell."""
        return sum(r.verdict != iv.AMBIGUOUS for r in self.rows_judged)

    @property
    def notes(self) -> list[str]:
        """What a reader must know before the table: rows with too few samples, rows not judged, nothing judged."""
        out = []
        few = [r for r in self.rows_judged if r.too_few]
        if few:
            least = min(min(r.n_a, r.n_b) for r in few)
            out.append(f"too few samples: {len(few)} of {len(self.rows)} rows have fewer than {iv.MIN_SAMPLES} on a "
                       f"side (the fewest: {least}), so no verdict there; re-run the command with more repeats "
                       "(--repeats) or a newer cugraphlab, whose records keep more")
        if self.not_judged:
            out.append(f"{self.not_judged} of {len(self.rows)} rows shown but not judged (host rows move 30-40% "
                       "between processes): judged are x ref, held, cold and device-bound rows; --judge all "
                       "judges every row")
        if not self.rows:
            out.append("nothing compared: no row is in both records")
        elif not self.rows_judged:
            out.append("nothing judged: no row repeats between processes (x ref, held, cold or device-bound), so "
                       "--fail-on fails; measure with the reference, or judge every row (--judge all)")
        elif not self.judged:
            out.append("nothing judged: every judged row is AMBIGUOUS (see why), so --fail-on fails")
        return out

    def fails(self, fail_on: str | None) -> bool:
        """Whether ``--fail-on fail_on`` fails (None: never): a judged row has a verdict it fails on, or nothing
        could be judged at all (no judged row SAME, FASTER or SLOWER: a check that cannot see is not a pass)."""
        if fail_on is None:
            return False
        verdicts = FAIL_ON[fail_on]
        return not self.judged or any(r.verdict in verdicts for r in self.rows_judged)

    def _extra_dict(self) -> dict:
        return {"counts": self.counts, "worst": self.worst, "judged": self.judged, "not_judged": self.not_judged,
                "notes": self.notes}


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
        raise InvalidArgumentError(f"threshold must be > 0, got {text!r} (it counts both ways: 5% judges both "
                                   f"slower and faster)")
    if pct:
        v /= 100.0
    elif v >= 1:
        raise InvalidArgumentError(f"threshold {s} is ambiguous: write {s}% for a percentage or a fraction like 0.05")
    if v > 1:
        raise InvalidArgumentError(f"threshold must be at most 100%, got {text!r}")
    return v


def _values(entry: Mapping) -> np.ndarray:
    # A record written by keep_samples holds at most MAX_SAMPLES; a longer hand-made one is thinned the same way.
    return np.array(bounded(v for v in entry["values"] if v is not None), dtype=float)


# ------------------------------------------------------------------------------------------------ judged rows

def check_judge(judge: Any) -> str:
    """``judge`` if it is one of ``JUDGE``, else InvalidArgumentError in one line."""
    if judge not in JUDGE:
        raise InvalidArgumentError(f"judge must be one of {', '.join(JUDGE)}, got {judge!r}")
    return judge


def _median(entry: Any) -> float | None:
    values = entry.get("values") if isinstance(entry, Mapping) else None
    if not isinstance(values, list):
        return None
    x = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    return float(np.median(x)) if x else None


def _device_bound(label: str, samples: Mapping) -> bool:
    way = label[: -len(": device")]
    device, host = _median(samples.get(label)), _median(samples.get(f"{way}: host"))
    return device is not None and host is not None and host > 0 and device >= DEVICE_BOUND * host


def _repeats(label: str, entry: Any, samples: Mapping) -> bool:
    if not isinstance(entry, Mapping):
        return False
    if entry.get("clock") in GPU_CLOCKS or entry.get("unit") == "time ratio":
        return True
    return label.endswith(": device") and entry.get("clock") == "device" and _device_bound(label, samples)


def judged_rows(a: Any, b: Any = None, judge: str = "repeatable") -> set[str] | None:
    """The labels of the rows whose verdicts count when record ``b`` is compared with record ``a`` (dicts, as
    read from JSON), or None for every row: the one rule of ``diff``, ``measure --compare-to`` and the plugin.

    ``judge="all"``: None (every row). ``"repeatable"`` (the default): None unless a side is a measure record;
    for measure records the rows that repeat between processes, of either side (the module docstring: x ref rows,
    rows of the held and cold clocks, device-bound device rows). InvalidArgumentError for another ``judge``.
    """
    if check_judge(judge) == "all":
        return None
    records = [r for r in (a, b) if isinstance(r, Mapping)]
    if not any(r.get("kind") == _MEASURE_KIND for r in records):
        return None
    out: set[str] = set()
    for r in records:
        samples = r.get("samples")
        if isinstance(samples, Mapping):
            out.update(label for label, entry in samples.items() if _repeats(label, entry, samples))
    return out


# --------------------------------------------------------------------------------------------------------- rows

def _row_seed(seed: int, label: str) -> np.random.Generator:
    # One stream per row, from the seed and the label: a row's interval does not depend on the other rows.
    return np.random.default_rng([int(seed), zlib.crc32(label.encode("utf-8"))])


def _compare_row(label: str, ea: Mapping, eb: Mapping, *, threshold: float, seed: int, resamples: int,
                 confidence: float, alpha: float, label_b: str | None = None, draws=None) -> DiffRow:
    unit_a, unit_b = ea["unit"], eb["unit"]
    xa, xb = _values(ea), _values(eb)
    clock_a, clock_b = ea.get("clock"), eb.get("clock")
    problem = None
    converted = iv.to_unit(xb, unit_b, unit_a)
    if converted is None:
        problem = f"units differ: A in {unit_a}, B in {unit_b}"
    else:
        xb = converted
    paired_note = ""
    if problem is None and clock_a != clock_b:
        if label_b is None:
            problem = f"clocks differ: A from {clock_a}, B from {clock_b}"
        else:  # a pair the caller asked for: two tools' clocks of one kernel, compared on purpose
            paired_note = f"paired rows of two clocks (A: {clock_a}, B: {clock_b}); "
    ga, gb = ea.get("groups"), eb.get("groups")
    c = iv.compare_samples(xa, xb, unit=unit_a, threshold=threshold, seed=_row_seed(seed, label),
                           resamples=resamples, confidence=confidence, alpha=alpha,
                           groups_a=ga if ga is not None and len(ga) == len(xa) else None,
                           groups_b=gb if gb is not None and len(gb) == len(xb) else None, draws=draws)
    verdict, reason = c.verdict, paired_note + c.reason
    grouped = [f"{side}: {len(set(g))} processes/contexts" for side, g in (("A", ga), ("B", gb))
               if g is not None and len(set(g)) >= 2]
    if grouped:
        reason += " (interval resampled by process/context: " + ", ".join(grouped) + ")"
    if problem is None and xa.size and xa.shape == xb.shape and np.array_equal(xa, xb):
        # the same measurements on both sides (a record against itself): nothing changed, whatever the spread
        verdict, reason = iv.SAME, f"B's {xa.size} samples are A's (the same measurements): nothing changed"
    for side, e in (("A", ea), ("B", eb)):
        if e.get("note") and verdict == iv.AMBIGUOUS:
            reason += f"; {side}: {e['note']}"
    if problem is not None:
        verdict, reason = iv.AMBIGUOUS, f"{problem}: not compared"
    i = c.interval
    return DiffRow(label=label, unit=unit_a, clock_a=clock_a, clock_b=clock_b, n_a=i.n_a, n_b=i.n_b,
                   median_a=i.median_a, median_b=i.median_b, ratio=i.ratio, low=i.low, high=i.high,
                   p_value=c.test.p_value, verdict=verdict, reason=reason, direction=c.direction,
                   slowdown=c.slowdown, modes_a=list(c.modes_a) if c.modes_a else None,
                   modes_b=list(c.modes_b) if c.modes_b else None, label_b=label_b)


#: Rows of one record whose processes hold the same numbers of samples share one set of two-level bootstrap draws
#: (``bootstrap.two_level_draws``, seeded by the seed, the side and those numbers): each row's interval is still its
#: own bootstrap, drawn in half the time. Up to this many positions (resamples x processes x samples) a set.
SHARED_DRAWS = 8_000_000


class _Draws:
    """The shared draws of one diff, made on first use (under a lock: rows run on threads), the same whatever the
    rows' order: a function of the seed, the side and the groups' sizes."""

    def __init__(self, seed: int, resamples: int):
        self.seed, self.resamples = int(seed), int(resamples)
        self.lock = threading.Lock()
        self.made: dict = {}

    def __call__(self, side: str, counts: tuple):
        from .stats.bootstrap import two_level_draws

        if not SHARED_DRAWS or self.resamples * len(counts) * max(counts) > SHARED_DRAWS:
            return None
        with self.lock:
            key = (side, counts)
            if key not in self.made:
                rng = np.random.default_rng([self.seed, 1 if side == "b" else 0, *counts])
                self.made[key] = two_level_draws(counts, self.resamples, rng)
            return self.made[key]


#: Rows are compared on up to this many threads (NumPy's random draws, arithmetic and sorts release the GIL): each
#: row draws from its own seeded stream, so the rows and their order do not depend on it.
THREADS = max(1, min(4, os.cpu_count() or 1))


def _rows_in_threads(jobs: list, kw: dict) -> list[DiffRow]:
    kw = dict(kw, draws=_Draws(kw["seed"], kw["resamples"]))

    def one(job):
        label, ea, eb, label_b = job
        return _compare_row(label, ea, eb, label_b=label_b, **kw)

    if THREADS < 2 or len(jobs) < 2:
        return [one(j) for j in jobs]
    with ThreadPoolExecutor(min(THREADS, len(jobs))) as pool:
        return list(pool.map(one, jobs))


def _environment(env_a: Mapping, env_b: Mapping) -> list[EnvRow]:
    rows = []
    for name, path in ENV_COLUMNS.items():
        a, b = _get(env_a, *path), _get(env_b, *path)
        if name in OPTIONAL_ENV_COLUMNS and a is None and b is None:
            continue
        rows.append(EnvRow(name, a, b, a != b))
    return rows


def _pairs(pairs: Iterable, sa: Mapping, sb: Mapping, a_name: str, b_name: str) -> list[tuple[str, str]]:
    out = []
    for pair in pairs or ():
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise InvalidArgumentError(f"a pair is two row labels (one of A, one of B), got {pair!r}")
        la, lb = pair
        for name, label, rows in ((a_name, la, sa), (b_name, lb, sb)):
            if label not in rows:
                known = ", ".join(repr(k) for k in list(rows)[:6]) + (" ..." if len(rows) > 6 else "")
                raise RecordError(f"pair: {name} has no row {label!r} (its rows: {known or 'none'})", params=("pair",))
        out.append((la, lb))
    return out


def diff_records(a: Any, b: Any, threshold: float = 0.05, seed: int = 0, *, a_name: str = "A", b_name: str = "B",
                 resamples: int = iv.RESAMPLES, confidence: float = iv.CONFIDENCE, alpha: float = iv.ALPHA,
                 env: dict | None = None, pairs: Iterable = (), allow_config: Iterable[str] | str = (),
                 judge: str = "repeatable") -> DiffResult:
    """Compare record ``b`` against record ``a`` row by row: each shared row's change with its interval and test.

    Each row's samples are compared (a percentile bootstrap of the ratio of medians, Mann-Whitney U beside it) and
    the row gets a verdict against ``threshold``. An nvbench record is compared by the rows ``pairs`` names, or the
    labels the two share.

    Parameters
    ----------
    a, b : dict
        The two records (read back from JSON, ``Record.to_dict()``, or an nvbench JSON object).
    threshold : float
        The fraction a change must exceed to count, in (0, 1] (0.05: 5%).
    seed : int
        Seed of the bootstrap (>= 0).
    a_name, b_name : str
        How messages name the two (file paths).
    resamples : int
        Bootstrap resamples (``stats.intervals``).
    confidence : float
        The intervals' confidence.
    alpha : float
        The test's significance level.
    env : dict or None
        The environment of the diff itself (default: ``records.environment.collect()``).
    pairs : iterable of (str, str)
        (label in A, label in B) rows compared besides the shared labels (nvbench's kernel against ours).
    allow_config : iterable of str or str
        Configuration keys allowed to differ ("all": any).
    judge : str
        Whose verdicts count: "repeatable" (measure records: the rows that repeat between processes) or "all".

    Returns
    -------
    DiffResult
        One row per compared label (ratio, interval, test, verdict, whether judged), the rows only one side has,
        the environments and configurations side by side, and the settings used.

    Raises
    ------
    RecordError
        In one line: either record cannot be judged (``diff_inputs``), the two differ in kind, schema or
        configuration, neither keeps raw samples, two tools' records share no row, or a pair names a row that is
        not there.
    InvalidArgumentError
        A bad threshold, seed or judge.
    """
    ra, rb, two_tools, changes = _checked_inputs(a, b, threshold, seed, judge, allow_config, a_name, b_name)
    sa, sb = ra["samples"], rb["samples"]
    paired = _pairs(pairs, sa, sb, a_name, b_name)
    shared = [k for k in sa if k in sb]
    if two_tools and not shared and not paired:
        raise RecordError(f"{a_name} ({ra['kind']}) and {b_name} ({rb['kind']}) share no row label: name the rows "
                          "to compare with --pair A_ROW B_ROW")
    kw = dict(threshold=float(threshold), seed=int(seed), resamples=resamples, confidence=confidence, alpha=alpha)
    jobs = [(k, sa[k], sb[k], None) for k in shared] + [(f"{la} ~ {lb}", sa[la], sb[lb], lb) for la, lb in paired]
    rows = _rows_in_threads(jobs, kw)
    nv_a, nv_b = ra.get("nvbench") or {}, rb.get("nvbench") or {}
    for r, (la, lb) in zip(rows, [(k, k) for k in shared] + paired):
        r.nvbench = nvbench_compare_status(nv_a.get(la), nv_b.get(lb))
    chosen = judged_rows(ra, rb, judge)
    for r in rows[:len(shared)]:  # a pair asked for by name is judged
        r.judged = chosen is None or r.label in chosen
    if env is None:
        from .records.environment import collect

        env = collect()
    config = {"threshold": float(threshold), "seed": int(seed), "resamples": int(resamples),
              "confidence": confidence, "alpha": alpha, "min_samples": iv.MIN_SAMPLES,
              "pairs": [list(p) for p in paired],
              "allow_config": allow_config if isinstance(allow_config, str) else list(allow_config),
              "judge": judge, "device_bound": DEVICE_BOUND,
              "interval": "percentile bootstrap of the ratio of medians, each side resampled on its own (by "
                          "process, then sample, where the record says which process; the rows of one side "
                          "share the draws)",
              "test": "Mann-Whitney U, two-sided, normal approximation with tie and continuity corrections"}
    return _diff_result(config, env, ra, rb, two_tools, changes, rows, shared, paired, a_name, b_name)


def _checked_inputs(a, b, threshold, seed, judge: str, allow_config, a_name: str,
                    b_name: str) -> tuple[dict, dict, bool, list]:
    """``diff_records``' checks before any statistics: (record A, record B, two tools, config changes)."""
    check_judge(judge)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not (
            math.isfinite(threshold) and 0 < threshold <= 1):
        raise InvalidArgumentError(f"threshold must be a fraction in (0, 1], got {threshold!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(f"seed must be an integer >= 0, got {seed!r}")
    ra = check_measurement(as_record(a), a_name)
    b = as_record(b)
    foreign = is_foreign(ra) or (isinstance(b, Mapping) and is_foreign(b))
    rb = check_measurement(b, b_name, kind=None if foreign else ra["kind"])
    two_tools = ra["kind"] != rb["kind"]
    if not two_tools and rb["schema"] != ra["schema"]:
        raise RecordError(f"{a_name} has schema {ra['schema']} of {ra['kind']} and {b_name} schema {rb['schema']}: "
                          "records of two schemas are not compared; re-run the older command")
    changes = [] if two_tools else config_changes(ra.get("config"), rb.get("config"))
    refuse_config(changes, ra["kind"], allow_config, a_name, b_name)
    if not ra["samples"] and not rb["samples"]:
        raise RecordError(f"neither {a_name} nor {b_name} keeps raw samples (their 'samples' blocks are empty)")
    return ra, rb, two_tools, changes


def _diff_result(config: dict, env, ra: dict, rb: dict, two_tools: bool, changes: list, rows: list, shared: list,
                 paired: list, a_name: str, b_name: str) -> DiffResult:
    """The DiffResult of ``diff_records``: its rows, the rows one side only has, environments and configs."""
    sa, sb = ra["samples"], rb["samples"]
    env_a, env_b = ra.get("env") or {}, rb.get("env") or {}
    clocks = {**(ra.get("clocks") or {}), **(rb.get("clocks") or {})}
    used_a = set(shared) | {la for la, _ in paired}
    used_b = set(shared) | {lb for _, lb in paired}
    return DiffResult(
        config=config,
        env=env, clocks=clocks, compared_kind=ra["kind"], compared_schema=ra["schema"],
        compared_kind_b=rb["kind"] if two_tools else None,
        sources={"a": a_name, "b": b_name}, rows=rows,
        only_a=[k for k in sa if k not in used_a], only_b=[k for k in sb if k not in used_b],
        environment=_environment(env_a if isinstance(env_a, Mapping) else {},
                                 env_b if isinstance(env_b, Mapping) else {}),
        config_changes=[EnvRow(k, va, vb, True) for k, va, vb in changes])
