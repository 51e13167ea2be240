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
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["record_name", "save", "Comparison", "compare", "compare_files", "DEFAULT_THRESHOLD"]

#: The plugin's default threshold: launch costs move about ±5% between processes on the H200 (README, "Figures
#: you can trust"), so a change must exceed 10% to count.
DEFAULT_THRESHOLD = 0.10


def record_name(nodeid: str, name: str | None = None) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", nodeid)
    if name:
        stem += "--" + re.sub(r"[^A-Za-z0-9._-]", "_", name)
    return stem + ".json"


def save(folder: str | Path, nodeid: str, record, name: str | None = None) -> Path:
    from ..report.files import write_json

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

    def fails(self, fail_on: str | None) -> bool:
        return self.diff is not None and self.diff.fails(fail_on)

    def summary(self) -> str:
        if self.new:
            return "new (no older record)"
        w = self.worst or {}
        counts = {}
        for v in (self.verdicts or {}).values():
            counts[v] = counts.get(v, 0) + 1
        text = ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
        if w and w.get("verdict") in ("SLOWER", "FASTER"):
            text += f"; worst {w['label']}: {w['verdict']} x{w['ratio']:.3f}"
        return text


def compare(old: dict, new: dict, nodeid: str, threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    from ..bench.diff import diff_records

    d = diff_records(old, new, threshold, a_name="saved", b_name="this run", env={})
    changed = [f"{r.label}: {r.verdict} x{r.ratio:.3f} [{r.low:.3f}, {r.high:.3f}]"
               for r in d.rows if r.verdict in ("SLOWER", "FASTER")]
    return Comparison(nodeid, verdicts={r.label: r.verdict for r in d.rows}, worst=d.worst, changed=changed, diff=d)


def compare_files(folder: str | Path, nodeid: str, new: dict, threshold: float = DEFAULT_THRESHOLD,
                  name: str | None = None) -> Comparison:
    from ..bench.diff import read_record_file

    path = Path(folder) / record_name(nodeid, name)
    if not path.is_file():
        return Comparison(nodeid, new=True)
    return compare(read_record_file(path), new, nodeid, threshold)
