"""The record of the floor studies (issue 18, docs/studies/floor.md's TO MEASURE items), and the helpers every study
of it shares: one row per figure, raw samples kept, rotated interleaved rounds, loop lengths from a probe.

The studies themselves live beside it: ``studies.floor.placement`` (the same chain on fresh buffers),
``studies.floor.shapes`` (graph boundaries without stamps, gaps against the grid, the fused kernel over launch shapes)
and ``studies.floor.l2_roof`` (an L2 read roof of our own). Each appends its rows to one ``FloorStudiesResult`` and
notes what is not a row (buffer addresses, spreads) under ``sections[name]``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Sequence

from cugraphlab.bench.records.record import CLOCKS, Record
from cugraphlab.bench.stats.paired_stats import round_order
from cugraphlab.bench.stats.summary import summarize

__all__ = ["StudyRow", "FloorStudiesResult", "iters_for", "round_up", "rotated_rounds", "SECTIONS"]

#: The studies in the order the script runs them (the placement study first: it wants a fresh process).
SECTIONS = ("placement", "placement_pdl", "boundary", "gap_grid", "fused_shapes", "l2_read")


@dataclass
class StudyRow:
    """One figure: median and p5-p95 of its samples, in ``unit``, from ``clock`` (a key of records.CLOCKS);
    ``derived`` says how the samples were computed from that clock when they are not its readings."""

    section: str
    key: str
    what: str
    size: int | None
    median: float
    p5: float
    p95: float
    n: int
    unit: str = "us"
    clock: str = "device"
    derived: str = ""
    verified: bool | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)


@dataclass(kw_only=True)
class FloorStudiesResult(Record):
    KIND: ClassVar[str] = "cugraphlab.study.floor.studies"

    rows: list[StudyRow] = field(default_factory=list)
    sections: dict = field(default_factory=dict)

    def add(self, section: str, key: str, what: str, values: Sequence[float], *, clock: str = "device",
            size: int | None = None, unit: str = "us", derived: str = "", verified: bool | None = None,
            note: str = "", **extra) -> StudyRow:
        """Summarize ``values`` into a row, keep them raw under "SECTION: KEY", and return the row."""
        if clock not in CLOCKS:
            raise KeyError(f"unknown clock {clock!r}")
        s = summarize(values, unit=unit, clock=clock)
        row = StudyRow(section, key, what, size, s.median, s.p5, s.p95, s.n, unit, clock, derived, verified, note,
                       dict(extra))
        self.rows.append(row)
        self.keep_samples(f"{section}: {key}", values, unit=unit, clock=clock)
        return row

    def section_rows(self, section: str) -> list[StudyRow]:
        return [r for r in self.rows if r.section == section]

    def row(self, section: str, key: str) -> StudyRow:
        return next(r for r in self.rows if r.section == section and r.key == key)

    @property
    def verified(self) -> bool:
        """No row failed its check (rows with nothing to check count as passing)."""
        return all(r.verified is not False for r in self.rows)

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


def round_up(x: int, multiple: int) -> int:
    """``x`` rounded up to a multiple of ``multiple`` (both >= 1)."""
    if multiple < 1 or x < 0:
        raise ValueError(f"need x >= 0 and multiple >= 1, got {x}, {multiple}")
    return -(-x // multiple) * multiple


def iters_for(probe_us_per_iter: float, target_ms: float, *, multiple: int = 1, lo: int = 1,
              hi: int = 100_000) -> int:
    """Iterations of a timed loop that lasts about ``target_ms`` at ``probe_us_per_iter`` µs each, a multiple of
    ``multiple``, within [lo, hi] (both rounded up to the multiple)."""
    if not (probe_us_per_iter > 0 and math.isfinite(probe_us_per_iter)) or target_ms <= 0:
        raise ValueError(f"need a positive probe and target, got {probe_us_per_iter}, {target_ms}")
    want = int(target_ms * 1e3 / probe_us_per_iter)
    lo_m, hi_m = round_up(max(lo, 1), multiple), max(round_up(max(lo, 1), multiple), hi // multiple * multiple)
    return min(max(round_up(max(want, 1), multiple), lo_m), hi_m)


def rotated_rounds(names: Sequence[str], rounds: int, sample: Callable[[str], float]) -> dict[str, list[float]]:
    """``rounds`` rounds over ``names``, each in the order of ``paired_stats.round_order`` (rotated by the round
    number, so every variant takes every position): name -> its ``sample(name)`` values in round order."""
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in round_order(list(names), r):
            out[name].append(sample(name))
    return out
