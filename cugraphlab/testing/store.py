"""Where the plugin keeps a test's record, and how an older one is compared with it.

One JSON record per measurement: ``DIR/<test id>.json`` (a second measurement in the same test is named:
``cgl_measure(work, name="graph")`` -> ``DIR/<test id>--graph.json``). The test id is the test file's name and the
test's name in it (``test_x.py::TestK::test_y[p]``: not pytest's node id, which changes with the rootdir), with
every character that is not a letter, a digit, ``.``, ``-`` or ``_`` replaced by ``_``, so that it is a file name
on any system.

A comparison is ``bench.diff.diff_records(old, new, threshold)``: row by row (``"eager: host"``, ``"eager: wall"``,
...), the ratio of medians with an interval and a rank test, both taking the process as the unit when the records
hold several (what ``--cgl-processes`` asks for); a verdict SAME / FASTER / SLOWER / AMBIGUOUS per row, and the
worst row. No record of the test in the folder: the comparison says "new".

Which rows decide (``--cgl-judge``): "repeatable" (the default) judges the rows that repeat between processes, "all"
every row: ``bench.diff.judged_rows``, the one rule ``cugraphlab diff --judge`` and ``measure --compare-to`` use
too (x ref rows, rows of the held and cold clocks, device-bound device rows). The absolute host, wall and device µs
of a launch move with the launch-cost mode the process (and the machine) landed in, by up to 30-40% between runs
(docs/studies/launch-cost-modes.md), which would read as a change of the code. The other rows are compared and
shown, not judged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["record_name", "save", "Comparison", "compare", "compare_files", "DEFAULT_THRESHOLD", "JUDGE"]

#: The plugin's default threshold: launch costs move about ±5% between processes on the H200 (README, "Figures
#: you can trust"), so a change must exceed 10% to count.
DEFAULT_THRESHOLD = 0.10
#: What ``--cgl-judge`` accepts (``bench.diff.JUDGE``).
JUDGE = ("repeatable", "all")


def record_name(nodeid: str, name: str | None = None) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", nodeid)
    if name:
        stem += "--" + re.sub(r"[^A-Za-z0-9._-]", "_", name)
    return stem + ".json"


def save(folder: str | Path, nodeid: str, record, name: str | None = None) -> Path:
    from ..core.files import write_json

    return write_json(Path(folder) / record_name(nodeid, name), record)


@dataclass
class Comparison:
    """One test's record against its older self: ``verdicts`` (row -> verdict), the ``worst`` row (a dict of
    bench.diff's), the text of the rows that changed, and ``new`` when there was no older record."""

    nodeid: str
    new: bool = False
    verdicts: dict | None = None
    worst: dict | None = None
    changed: list | None = None
    diff: object = None
    judged: list | None = None

    def fails(self, fail_on: str | None) -> bool:
        """Whether a judged row got a verdict ``fail_on`` ("slower", "faster", "any-change") fails on."""
        if self.diff is None or fail_on is None:
            return False
        from ..bench.diff import FAIL_ON

        return any(self.verdicts[label] in FAIL_ON[fail_on] for label in self.judged or ())

    def summary(self) -> str:
        if self.new:
            return "new (no older record)"
        counts: dict = {}
        for label in self.judged or ():
            v = self.verdicts[label]
            counts[v] = counts.get(v, 0) + 1
        text = ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "no row judged"
        others = len(self.verdicts or {}) - len(self.judged or ())
        if others:
            text += f" ({len(self.judged or ())} rows judged, {others} shown in the record)"
        if self.changed:
            text += "; " + "; ".join(self.changed)
        return text


def compare(old: dict, new: dict, nodeid: str, threshold: float = DEFAULT_THRESHOLD,
            judge: str = "repeatable") -> Comparison:
    """``new`` against ``old`` (two measure records as dicts) by ``bench.diff.diff_records``; the judged rows are
    ``bench.diff.judged_rows(old, new, judge)`` (module docstring)."""
    from ..bench.diff import diff_records

    d = diff_records(old, new, threshold, a_name="saved", b_name="this run", env={}, judge=judge)
    verdicts = {r.label: r.verdict for r in d.rows}
    judged = [r.label for r in d.rows_judged]
    changed = [f"{r.label}: {r.verdict} x{r.ratio:.3f} [{r.low:.3f}, {r.high:.3f}]"
               for r in d.rows_judged if r.verdict in ("SLOWER", "FASTER")]
    return Comparison(nodeid, verdicts=verdicts, worst=d.worst, changed=changed, diff=d, judged=judged)


def compare_files(folder: str | Path, nodeid: str, new: dict, threshold: float = DEFAULT_THRESHOLD,
                  name: str | None = None, judge: str = "repeatable") -> Comparison:
    from ..bench.diff import read_record_file

    path = Path(folder) / record_name(nodeid, name)
    if not path.is_file():
        return Comparison(nodeid, new=True)
    return compare(read_record_file(path), new, nodeid, threshold, judge)
