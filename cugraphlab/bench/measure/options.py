"""How ``measure`` measures: one frozen ``MeasureOptions``, its defaults here and nowhere else, every value checked
when it is made (so a bad keyword is refused before anything runs, whichever ways are asked).

``MeasureOptions.coerce(x)`` is the door every entry point uses (``cugraphlab.measure``, the command line, the
pytest fixture, a worker process): an options object as it is, a dict converted (keys as the fields; an unknown key
refused), None the defaults. A worker process gets ``to_dict()`` and converts it back.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ...core.errors import InvalidArgumentError

__all__ = ["MeasureOptions", "CAPTURE_MODES", "L2_GONE", "SAMPLING_KEYS"]

CAPTURE_MODES = ("thread_local", "global", "relaxed")
SAMPLING_KEYS = ("min_samples", "max_samples", "target_spread", "time_budget_s")
L2_GONE = ("l2='cold' is replaced: every way now has a cold row (one call after an L2 flush, queued behind the hold "
           "kernel, CUDA events around that call alone: nvbench's cold recipe); read result['WAY'].cold (the command "
           "line prints it beside the others)")


def _count(name: str, v, *, allow_none: bool = False) -> None:
    if v is None and allow_none:
        return
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidArgumentError(f"{name} must be a whole number >= 1, got {v!r}")


def _number(name: str, v, *, positive: bool) -> None:
    ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and (v > 0 if positive
                                                                                           else v >= 0)
    if not ok:
        raise InvalidArgumentError(f"{name} must be a finite number {'> 0' if positive else '>= 0'}, got {v!r}")


@dataclass(frozen=True)
class MeasureOptions:
    """What ``cugraphlab.measure`` documents, with its defaults: ``ways`` (None: every way the work has),
    ``calls`` per sample (None: calibrated to about 1 ms), ``min_samples``/``max_samples``/``target_spread``/
    ``time_budget_s`` (when sampling stops), ``sm_clock`` (read the SM clock each round), ``reference`` (time the
    bare launch of an empty kernel in the same rounds, for x ref), ``capture_mode`` (the graph capture's
    CUstreamCaptureMode) and ``gpu_clocks`` (the held and cold rows). InvalidArgumentError (one line) for any
    value out of range."""

    ways: tuple[str, ...] | None = None
    calls: int | None = None
    min_samples: int = 10
    max_samples: int = 200
    target_spread: float = 0.01
    time_budget_s: float = 5.0
    sm_clock: bool = True
    reference: bool = True
    capture_mode: str = "thread_local"
    gpu_clocks: bool = True

    def __post_init__(self) -> None:
        from .way import WAYS

        if self.ways is not None:
            if isinstance(self.ways, str) or not all(isinstance(w, str) for w in self.ways):
                raise InvalidArgumentError(f"ways must be a tuple of way names, got {self.ways!r}")
            object.__setattr__(self, "ways", tuple(self.ways))
            if not self.ways:
                raise InvalidArgumentError("ways is empty: name at least one of eager, graph, native, floor")
            unknown = [w for w in self.ways if w not in WAYS]
            if unknown:
                raise InvalidArgumentError(f"unknown way {unknown[0]!r}; ways: {', '.join(WAYS)}")
        _count("calls", self.calls, allow_none=True)
        _count("min_samples", self.min_samples)
        _count("max_samples", self.max_samples)
        _number("target_spread", self.target_spread, positive=False)
        _number("time_budget_s", self.time_budget_s, positive=True)
        for name in ("sm_clock", "reference", "gpu_clocks"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgumentError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.capture_mode not in CAPTURE_MODES:
            raise InvalidArgumentError(f"capture_mode must be one of {', '.join(CAPTURE_MODES)}, got "
                                       f"{self.capture_mode!r}")

    @classmethod
    def coerce(cls, options=None) -> "MeasureOptions":
        """The door (module docstring): an options object, a dict of its fields, or None."""
        if options is None:
            return cls()
        if isinstance(options, cls):
            return options
        if not isinstance(options, dict):
            raise InvalidArgumentError(f"options must be a MeasureOptions or a dict, got {type(options).__name__}")
        kw = dict(options)
        l2 = kw.pop("l2", "warm")
        if l2 != "warm":
            raise InvalidArgumentError(L2_GONE if l2 == "cold" else f"l2 must be 'warm' (the default), got {l2!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(kw) - names)
        if unknown:
            raise InvalidArgumentError(f"unknown measure option {unknown[0]!r}; options: {', '.join(sorted(names))}")
        return cls(**kw)

    def replace(self, **changes) -> "MeasureOptions":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def sampling(self) -> dict:
        """The sampling settings (kept in a record's ``sampling``, not its config: they change how many samples a
        row has, or which rows there are, not what a row measures), with ``gpu_clocks``."""
        return {**{k: getattr(self, k) for k in SAMPLING_KEYS}, "gpu_clocks": self.gpu_clocks}
