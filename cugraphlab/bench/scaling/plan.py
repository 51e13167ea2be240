"""The plan of ``cugraphlab scaling``: which graphs to measure, how many samples, the time caps; the costs it times.

``make_plan`` checks every input before any GPU work (InvalidArgumentError, one line) and returns a ScalingPlan: the
shapes (experiment.scaling.Shape: a straight line of L units, or a fork/join of W branches), samples per set and
the time cap per set, shared out of the sweep's budget. ``MEASURES`` names every cost a point gets, with its unit
and clock; ``kept_samples`` thins the raw samples a record keeps. bench.scaling.sweep measures the plan,
bench.scaling.analysis reads the record.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.errors import InvalidArgumentError, positive_int
from ...experiment.scaling import MAX_WIDTH, TOPOLOGIES, WORKS, Shape
from ..records.record import bounded

__all__ = ["ScalingPlan", "make_plan", "MEASURES", "series_key", "sample_label", "kept_samples",
           "DEFAULT_LENGTHS", "DEFAULT_WIDTHS", "QUICK_LENGTHS", "QUICK_WIDTHS", "KEPT_SAMPLES", "HELD_ROUNDS",
           "QUICK_HELD_ROUNDS", "HELD_PAIRS", "PAIR_MIN_SAMPLES", "PAIR_MAX_SAMPLES", "PAIRED_COSTS"]

DEFAULT_LENGTHS = tuple(1 << i for i in range(13))  # 1 .. 4096
DEFAULT_WIDTHS = (1, 2, 4, 8, 16)
QUICK_LENGTHS = (1, 4, 16, 64, 256, 1024)
QUICK_WIDTHS = (1, 4)
MAX_LENGTH = 1 << 16
DEFAULT_BUDGET_S = 120.0  # the default sweep, within the 3 minutes on an H200
QUICK_BUDGET_S = 12.0
SETS_PER_POINT = 4  # lifecycle, paired instantiate, steady eager, steady graph: the per-point share of the budget
HELD_SHARE = 0.3  # of the budget for the held rounds (after at least two rounds they stop once it is spent)
TARGET_SPREAD = 0.02
HELD_ROUNDS = 4  # rounds of held launches over every point (quick: QUICK_HELD_ROUNDS)
QUICK_HELD_ROUNDS = 3
HELD_PAIRS = 3  # Python/C pairs of holds per point per round
PAIR_MIN_SAMPLES = 8  # paired-instantiate samples (two pairs each) at least, at most PAIR_MAX_SAMPLES
PAIR_MAX_SAMPLES = 20
KEPT_SAMPLES = 32  # raw samples kept per point and cost (evenly thinned; summaries use all): a default record < 1 MB
#: costs whose raw samples are Python/C pairs: kept whole (never thinned, at most 2 * PAIR_MAX_SAMPLES, or rounds x
#: pairs), in the order of the point's ``paired`` groups
PAIRED_COSTS = ("held_launch_us", "held_launch_c_us", "pair_instantiate_python_us", "pair_instantiate_c_us")

#: cost key -> (what it is, unit, clock key of bench.records.record.CLOCKS, "c_monotonic"
#: (bench.native.instantiate.NATIVE_CLOCK), or None)
MEASURES: dict[str, tuple[str, str, str | None]] = {
    "capture_us": ("capture (begin ... end)", "us", "host_api"),
    "build_us": ("explicit build (cuGraphAddKernelNode x N)", "us", "host_api"),
    "instantiate_us": ("cuGraphInstantiate", "us", "host_api"),
    "upload_api_us": ("cuGraphUpload (API)", "us", "host_api"),
    "upload_total_us": ("cuGraphUpload until complete", "us", "wall"),
    "first_launch_api_us": ("first launch, not uploaded (API)", "us", "host_api"),
    "first_launch_total_us": ("first launch, not uploaded, until complete", "us", "wall"),
    "uploaded_launch_api_us": ("first launch after upload (API)", "us", "host_api"),
    "repeat_launch_api_us": ("repeat launch, idle stream (API)", "us", "host_api"),
    "repeat_launch_total_us": ("repeat launch, idle stream, until complete", "us", "wall"),
    "held_launch_us": ("cuGraphLaunch with the device held (host)", "us", "host_call"),
    "held_launch_c_us": ("cuGraphLaunch from C with the device held (host), paired", "us", "c_monotonic"),
    "pair_instantiate_python_us": ("cuGraphInstantiate from Python, paired with C", "us", "host_api"),
    "pair_instantiate_c_us": ("cuGraphInstantiate from C, paired with Python", "us", "c_monotonic"),
    "device_us": ("device time per graph, back to back (%globaltimer)", "us", "globaltimer"),
    "exec_bytes": ("device memory per executable (cuMemGetInfo)", "bytes", None),
    "eager_us_per_iter": ("eager launches of the same work, per iteration", "us", "wall"),
    "graph_us_per_iter": ("graph replay, per iteration", "us", "wall"),
}
_LIFECYCLE = ("capture_us", "build_us", "instantiate_us", "first_launch_api_us", "first_launch_total_us",
              "repeat_launch_api_us", "repeat_launch_total_us", "upload_api_us", "upload_total_us",
              "uploaded_launch_api_us", "exec_bytes")


def series_key(topology: str, width: int) -> str:
    """"line", or "forkjoin:w4": the curve a point belongs to."""
    return "line" if topology == "line" else f"forkjoin:w{width}"


def sample_label(series: str, length: int, cost: str) -> str:
    return f"{series}:L{length}:{cost}"


# --- the plan --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalingPlan:
    """Every point to measure and how: shapes, work, samples per set, the time cap per set."""

    work: str
    topologies: tuple[str, ...]
    lengths: tuple[int, ...]
    widths: tuple[int, ...]
    shapes: tuple[Shape, ...]
    skipped: tuple[str, ...]  # points the plan leaves out, and why
    repeats: int  # at least this many samples per set
    max_samples: int
    time_cap_s: float  # per set of samples at one point
    budget_s: float
    size: int  # chain floats
    quick: bool
    held_rounds: int = HELD_ROUNDS  # rounds of held launches over every point
    held_pairs: int = HELD_PAIRS  # Python/C pairs of holds per point and round

    @property
    def max_width(self) -> int:
        return max((s.width for s in self.shapes), default=1)

    def to_dict(self) -> dict:
        return {"work": self.work, "topologies": list(self.topologies), "lengths": list(self.lengths),
                "widths": list(self.widths), "points": len(self.shapes), "skipped": list(self.skipped),
                "repeats": self.repeats, "max_samples": self.max_samples, "time_cap_s": self.time_cap_s,
                "budget_s": self.budget_s, "size": self.size, "quick": self.quick,
                "held_rounds": self.held_rounds, "held_pairs": self.held_pairs}


def _int_list(name: str, values, maximum: int) -> tuple[int, ...]:
    if isinstance(values, str):
        parts = [p.strip() for p in values.split(",")]
        try:
            values = [int(p.replace("_", "")) for p in parts]
        except ValueError:
            raise InvalidArgumentError(f"{name} must be integers separated by commas, got {values!r}") from None
    values = list(values)
    if not values:
        raise InvalidArgumentError(f"{name}: give at least one value")
    return tuple(sorted({positive_int(name, v, maximum) for v in values}))


def _names(name: str, values, known: tuple[str, ...]) -> tuple[str, ...]:
    items = [s.strip() for s in values.split(",")] if isinstance(values, str) else [str(s).strip() for s in values]
    items = [s for s in items if s]
    if not items:
        raise InvalidArgumentError(f"{name}: give at least one of {', '.join(known)}")
    bad = [s for s in items if s not in known]
    if bad:
        raise InvalidArgumentError(f"unknown {name} {bad[0]!r}; known: {', '.join(known)}")
    return tuple(k for k in known if k in items)


def make_plan(lengths=None, widths=None, *, work: str = "empty", topologies="line,forkjoin", quick: bool = False,
              repeats: int | None = None, budget_s: float | None = None, size: int = 1024,
              max_samples: int = 200, rounds: int | None = None) -> ScalingPlan:
    """The checked plan of a scaling sweep: which graphs (topology x length x width), how many samples, how long.

    Every input is checked here, before any GPU work. Fork/join points with fewer units than branches are skipped
    (and listed in the plan's ``skipped``); the time budget is shared out as a cap per set of samples.

    Parameters
    ----------
    lengths : iterable of int or None
        Units per graph (empty kernels, or chain iterations); default 1..4096 doubling (``quick``: 1, 4, 16, 64,
        256, 1024).
    widths : iterable of int or None
        Fork/join branches; default 1, 2, 4, 8, 16 (``quick``: 1, 4).
    work : str
        What a unit is: "empty" (an empty kernel) or "chain" (a chain iteration), ``experiment.scaling.WORKS``.
    topologies : str or iterable of str
        "line", "forkjoin" or both (comma-separated or a list).
    quick : bool
        The quick defaults (fewer points, samples, rounds and seconds).
    repeats : int or None
        At least this many samples per set (default 5, quick 3; at most 1000).
    budget_s : float or None
        The sweep's time target in seconds (default 120, quick 12).
    size : int
        The chain's floats.
    max_samples : int
        At most this many samples per set (raised to ``repeats`` if below).
    rounds : int or None
        Rounds of held launches over every point (default 4, quick 3; ``HELD_PAIRS`` Python/C pairs of holds per
        point and round; at most 100).

    Returns
    -------
    ScalingPlan
        The points in order, the points skipped, and every count and cap above.

    Raises
    ------
    InvalidArgumentError
        In one line: an unknown work or topology, a length, width, count or size out of range, a time budget that
        is not a number of seconds > 0, or a plan with no point.
    """
    if work not in WORKS:
        raise InvalidArgumentError(f"work must be one of {', '.join(WORKS)}, got {work!r}", params=("work",))
    tops = _names("topology", topologies, TOPOLOGIES)
    lengths = _int_list("graph length", lengths if lengths is not None else
                        (QUICK_LENGTHS if quick else DEFAULT_LENGTHS), MAX_LENGTH)
    widths = _int_list("width", widths if widths is not None else (QUICK_WIDTHS if quick else DEFAULT_WIDTHS),
                       MAX_WIDTH)
    repeats = positive_int("repeats", repeats if repeats is not None else (3 if quick else 5), 1000)
    rounds = positive_int("held rounds", rounds if rounds is not None else (QUICK_HELD_ROUNDS if quick else
                                                                            HELD_ROUNDS), 100)
    max_samples = max(positive_int("max samples", max_samples), repeats)
    size = positive_int("size (floats)", size)
    budget = float(budget_s if budget_s is not None else (QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S))
    if not (math.isfinite(budget) and budget > 0):
        raise InvalidArgumentError(f"the time budget must be a number of seconds > 0, got {budget_s!r}")
    shapes, skipped = _shapes(tops, lengths, widths)
    cap = min(max(budget * (1 - HELD_SHARE) / (len(shapes) * SETS_PER_POINT), 0.01), 2.0)
    return ScalingPlan(work, tops, lengths, widths, tuple(shapes), tuple(skipped), repeats, max_samples, cap,
                       budget, size, bool(quick), rounds, HELD_PAIRS)


def _shapes(tops, lengths, widths) -> tuple[list[Shape], list[str]]:
    """The plan's points in order (lines, then fork/joins by width) and the fork/joins skipped, each with why."""
    shapes, skipped = [], []
    if "line" in tops:
        shapes += [Shape("line", n) for n in lengths]
    if "forkjoin" in tops:
        for w in widths:
            for n in lengths:
                if n < w:
                    skipped.append(f"forkjoin W={w} L={n}: fewer units than branches")
                else:
                    shapes.append(Shape("forkjoin", n, w))
    if not shapes:
        raise InvalidArgumentError("the plan has no point: every fork/join width exceeds every length")
    return shapes, skipped




def kept_samples(values, unit: str, limit: int | None = KEPT_SAMPLES) -> list[float]:
    """The raw samples a record keeps of one point and cost: at most ``limit`` (None: all), evenly thinned in order
    (``records.bounded``), each to 5 significant digits and µs to the nanosecond at most (the host clocks'
    resolution; a relative 1e-5 is far below any spread measured here), bytes to the byte."""
    kept = bounded(values, limit) if limit is not None else bounded(values)
    if unit != "us":
        return [float(round(v)) for v in kept]
    return [float(f"{round(v, 3):.5g}") for v in kept]
