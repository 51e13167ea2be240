"""Turn timing samples into robust summary statistics.

Launch-cost samples are heavy-tailed (an occasional interrupt or page fault
costs 100x a normal launch), so everything here is built around the median
and order statistics rather than mean and standard deviation.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from ...core.errors import InvalidArgumentError, positive_int

__all__ = [
    "STOP_REASONS",
    "Summary",
    "median_ci_halfwidth",
    "sample_adaptively",
    "summarize",
]

#: Why a measurement loop ended; ``"fixed"`` means a caller-chosen sample set.
STOP_REASONS = ("spread", "time_cap", "max_samples", "fixed")

# Below this many samples the order-statistic ranks n/2 +- 0.98*sqrt(n)
# fall outside [1, n], so no honest ~95% interval exists.
_MIN_CI_SAMPLES = 6


@dataclass(frozen=True)
class Summary:
    """Summary statistics of one set of timing samples.

    Attributes:
        median, p5, p95, mean, min, max: statistics in ``unit``.
        n: number of samples.
        unit: unit of all statistics, e.g. ``"us"``.
        clock: which clock produced the samples, e.g. ``"perf_counter_ns"``
            or ``"cuEventElapsedTime"``.
        stop_reason: why sampling ended, one of :data:`STOP_REASONS`.
        rel_spread: relative half-width of the ~95% CI of the median
            (see :func:`median_ci_halfwidth`); ``inf`` when too few samples.
    """

    median: float
    p5: float
    p95: float
    mean: float
    min: float
    max: float
    n: int
    unit: str
    clock: str
    stop_reason: str
    rel_spread: float
    samples: tuple = field(default=(), repr=False, compare=False)  # the raw values (not in to_dict)

    @property
    def spread_pct(self) -> float:
        """Width of the p5..p95 band as a percentage of the median."""
        if self.median == 0:
            return 0.0
        return (self.p95 - self.p5) / self.median * 100.0

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form, safe for strict JSON.

        A non-finite ``rel_spread`` becomes ``None`` because strict JSON has
        no Infinity; :meth:`from_dict` maps it back.
        """
        d = asdict(self)
        d.pop("samples", None)
        if not math.isfinite(d["rel_spread"]):
            d["rel_spread"] = None
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Summary":
        """Rebuild a Summary from :meth:`to_dict` output; extra keys are ignored."""
        names = [f.name for f in fields(cls) if f.name != "samples"]
        missing = [k for k in names if k not in d]
        if missing:
            raise InvalidArgumentError(f"Summary.from_dict: missing keys {missing}")
        rel = d["rel_spread"]
        return cls(
            median=float(d["median"]),
            p5=float(d["p5"]),
            p95=float(d["p95"]),
            mean=float(d["mean"]),
            min=float(d["min"]),
            max=float(d["max"]),
            n=int(d["n"]),
            unit=str(d["unit"]),
            clock=str(d["clock"]),
            stop_reason=str(d["stop_reason"]),
            rel_spread=math.inf if rel is None else float(rel),
        )


def _as_array(samples: Iterable[float]) -> np.ndarray:
    arr = np.asarray(list(samples) if not isinstance(samples, np.ndarray) else samples,
                     dtype=float).ravel()
    if arr.size == 0:
        raise InvalidArgumentError("no samples: need at least one timing sample")
    return arr


def median_ci_halfwidth(samples: Iterable[float]) -> float:
    """Relative half-width of a distribution-free ~95% CI of the median.

    Uses the order statistics at 1-based ranks ``n/2 - 0.98*sqrt(n)`` (rounded
    down) and ``n/2 + 0.98*sqrt(n)`` (rounded up), i.e. the normal
    approximation to the binomial, which needs no assumption about the shape
    of the timing distribution. The half-width is divided by ``|median|``.

    Returns ``inf`` for fewer than 6 samples, or when the median is 0 and the
    interval is not degenerate.
    """
    arr = _as_array(samples)
    n = arr.size
    if n < _MIN_CI_SAMPLES:
        return math.inf
    x = np.sort(arr)
    delta = 0.98 * math.sqrt(n)
    lo = max(1, math.floor(n / 2 - delta))
    hi = min(n, math.ceil(n / 2 + delta))
    half = (x[hi - 1] - x[lo - 1]) / 2.0
    med = abs(float(np.median(x)))
    if med == 0:
        return 0.0 if half == 0 else math.inf
    return float(half / med)


def summarize(
    samples: Iterable[float],
    *,
    unit: str,
    clock: str,
    stop_reason: str = "fixed",
) -> Summary:
    """Summarize samples (percentiles use numpy's linear interpolation).

    Raises:
        InvalidArgumentError (a ValueError): if ``samples`` is empty or ``stop_reason`` is unknown.
    """
    if stop_reason not in STOP_REASONS:
        raise InvalidArgumentError(f"stop_reason must be one of {STOP_REASONS}, got {stop_reason!r}")
    arr = _as_array(samples)
    p5, med, p95 = np.percentile(arr, [5.0, 50.0, 95.0])
    return Summary(
        median=float(med),
        p5=float(p5),
        p95=float(p95),
        mean=float(arr.mean()),
        min=float(arr.min()),
        max=float(arr.max()),
        n=int(arr.size),
        unit=unit,
        clock=clock,
        stop_reason=stop_reason,
        rel_spread=median_ci_halfwidth(arr),
        samples=tuple(float(v) for v in arr),
    )


def sample_adaptively(
    sample_fn: Callable[[], float],
    *,
    warmup: int = 3,
    min_samples: int = 10,
    max_samples: int = 1000,
    target_rel_spread: float = 0.01,
    time_cap_s: float = 2.0,
    unit: str = "us",
    clock: str = "perf_counter_ns",
    clock_fn: Callable[[], float] = time.perf_counter,
) -> Summary:
    """Sample adaptively until the median is known well enough.

    ``sample_fn()`` is called ``warmup`` times with results discarded (first
    calls pay for module loading, caches and lazy allocation), then repeatedly,
    each call returning one float sample in ``unit``. After each sample the
    loop stops, checked in this order, when:

    * ``n >= min_samples`` and :func:`median_ci_halfwidth` ``<=
      target_rel_spread`` -> ``stop_reason="spread"``;
    * ``n == max_samples`` -> ``"max_samples"``;
    * more than ``time_cap_s`` seconds have elapsed -> ``"time_cap"``.

    Elapsed time is read from ``clock_fn`` (seconds) once just before the
    first measured sample and once after each sample; warmup is not counted.
    ``clock_fn`` is injectable so tests can use a fake clock.

    Raises:
        InvalidArgumentError (a ValueError, one line): on invalid arguments (the integers through
        ``core.errors.positive_int``, the package's one integer validator). ValueError: a non-finite sample.
    """
    if not callable(sample_fn):
        raise InvalidArgumentError("sample_fn must be callable")
    positive_int("warmup", warmup, minimum=0)
    positive_int("min_samples", min_samples)
    positive_int("max_samples", max_samples)
    if max_samples < min_samples:
        raise InvalidArgumentError(f"max_samples ({max_samples}) must be >= min_samples ({min_samples})")
    if not (isinstance(target_rel_spread, (int, float)) and target_rel_spread >= 0
            and math.isfinite(target_rel_spread)):
        raise InvalidArgumentError(f"target_rel_spread must be a finite number >= 0, got {target_rel_spread!r}")
    if not (isinstance(time_cap_s, (int, float)) and time_cap_s > 0):
        raise InvalidArgumentError(f"time_cap_s must be a number > 0, got {time_cap_s!r}")
    if not callable(clock_fn):
        raise InvalidArgumentError("clock_fn must be callable")

    for _ in range(warmup):
        sample_fn()

    samples: list[float] = []
    t0 = clock_fn()
    while True:
        value = float(sample_fn())
        if not math.isfinite(value):
            raise InvalidArgumentError(f"sample_fn returned a non-finite sample: {value!r}")
        samples.append(value)
        n = len(samples)
        elapsed = clock_fn() - t0
        # The CI costs a sort, so skip it until it could matter.
        if n >= min_samples and median_ci_halfwidth(samples) <= target_rel_spread:
            reason = "spread"
        elif n >= max_samples:
            reason = "max_samples"
        elif elapsed > time_cap_s:
            reason = "time_cap"
        else:
            continue
        return summarize(samples, unit=unit, clock=clock, stop_reason=reason)
