"""The study's record and its tables: nvbench's figures beside cugraphlab's, how far apart, and what only cugraphlab
shows. Pure: record dicts in, text out (no device).

Agreement is judged by ``cugraphlab diff`` itself: nvbench's cold GPU samples (its ``--jsonbin`` file) paired with
cugraphlab's "cold isolated" samples of the same workload (``diff_records(..., pairs=..., threshold=0.03)``): SAME
means the 95% interval of the ratio of medians lies inside ±3%. nvbench's batch is one figure (a mean over the
batch), so the batch rows give the ratio of cugraphlab's median to it, within 3% or not.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import ClassVar

from cugraphlab.bench.diff import diff_records
from cugraphlab.bench.records.record import Record
from cugraphlab.report.tables import format_table

from .measure import UNROLL
from .nvbench_side import GRAPH_SUFFIX

__all__ = ["NvbenchStudyResult", "KIND", "GOAL", "nvbench_label", "agreement", "render_study"]

KIND = "cugraphlab.study.nvbench"
GOAL = 0.03  # agreement within 3% on device time


@dataclass(kw_only=True)
class NvbenchStudyResult(Record):
    """cugraphlab's rows of the study (samples "<workload>: <row>", measure.ROWS), the checks and facts."""

    KIND: ClassVar[str] = KIND

    workloads: list = field(default_factory=list)  # workload names, in order
    checks: list = field(default_factory=list)  # {"text", "ok"}
    facts: dict = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


def nvbench_label(nv: dict, bench_name: str) -> str | None:
    """nvbench's samples row of benchmark ``bench_name`` ("<name> [<state>]: cold GPU"), or None."""
    for label in nv.get("samples") or {}:
        if label.startswith(bench_name + " [") and label.endswith(": cold GPU"):
            return label
    return None


def _median(d: dict, label: str) -> float | None:
    entry = (d.get("samples") or {}).get(label)
    values = entry and [v for v in entry["values"] if v is not None]
    return statistics.median(values) if values else None


def _batch(nv: dict, bench_name: str) -> float | None:
    label = nvbench_label(nv, bench_name)
    s = (nv.get("nvbench") or {}).get(label) if label else None
    return s.get("batch_gpu_mean_us") if s else None


def _ratio(a, b):
    return b / a if isinstance(a, float) and isinstance(b, float) and a > 0 else None


@dataclass
class Agreement:
    """One workload's figures from both tools (µs per launch) and how far apart."""

    workload: str
    nv_cold: float | None
    cgl_cold: float | None
    cold_ratio: float | None
    cold_low: float | None
    cold_high: float | None
    cold_verdict: str
    nv_graph: float | None
    cgl_graph: float | None
    nv_batch: float | None
    cgl_eager: float | None

    @property
    def graph_ratio(self):
        return _ratio(self.nv_graph, self.cgl_graph)

    @property
    def batch_ratio(self):
        return _ratio(self.nv_batch, self.cgl_eager)

    @property
    def cold_ok(self) -> bool:
        return self.cold_verdict == "SAME"

    @property
    def graph_ok(self) -> bool:
        r = self.graph_ratio
        return r is not None and abs(r - 1) <= GOAL


def agreement(nv: dict, ours: dict) -> list[Agreement]:
    """Per workload of ``ours``: nvbench's cold and batch figures against cugraphlab's, the cold pair judged by
    ``diff_records`` at ±3% (A = nvbench, B = cugraphlab)."""
    pairs, names = [], []
    for name in ours.get("workloads") or []:
        label = nvbench_label(nv, name)
        if label and f"{name}: cold isolated" in ours["samples"]:
            pairs.append((label, f"{name}: cold isolated"))
            names.append(name)
    judged = {}
    if pairs:
        d = diff_records(nv, ours, pairs=pairs, threshold=GOAL, env={}, a_name="nvbench", b_name="cugraphlab")
        judged = {name: row for name, row in zip(names, d.rows[-len(pairs):])}
    out = []
    for name in ours.get("workloads") or []:
        row = judged.get(name)
        graph = _batch(nv, name + GRAPH_SUFFIX)
        out.append(Agreement(
            workload=name, nv_cold=row.median_a if row else None, cgl_cold=row.median_b if row else None,
            cold_ratio=row.ratio if row else None, cold_low=row.low if row else None,
            cold_high=row.high if row else None, cold_verdict=row.verdict if row else "not measured",
            nv_graph=graph / UNROLL if graph else None, cgl_graph=_median(ours, f"{name}: graph x{UNROLL}"),
            nv_batch=_batch(nv, name), cgl_eager=_median(ours, f"{name}: eager loop")))
    return out


def _f(v, fmt="{:.3f}") -> str:
    return "-" if v is None else fmt.format(v)


def _pct(r) -> str:
    return "-" if r is None else f"{(r - 1) * 100:+.1f}%"


def render_study(nv: dict, ours: dict) -> str:
    """The three tables and the goal line."""
    rows = agreement(nv, ours)
    cold = [[a.workload, _f(a.nv_cold), _f(a.cgl_cold), _f(a.cold_ratio),
             f"[{_f(a.cold_low)}, {_f(a.cold_high)}]", a.cold_verdict, _f(a.nv_graph), _f(a.cgl_graph),
             _pct(a.graph_ratio), "yes" if a.graph_ok else "no"] for a in rows]
    lines = ["Device time measured the same way by both (µs per launch; cugraphlab / nvbench):",
             format_table(["workload", "nvbench cold", "cgl cold isolated", "ratio", "95% interval", "±3% (diff)",
                           f"nvbench batch x{UNROLL}", f"cgl graph x{UNROLL}", "diff", "±3%"], cold,
                          align="lrrrllrrrl")]
    judged = [a for a in rows if a.cold_ratio is not None]
    graphs = [a for a in rows if a.graph_ratio is not None]
    lines.append(f"goal (within 3% on device time): cold {sum(a.cold_ok for a in judged)} of {len(judged)} "
                 f"workloads SAME at ±3%; graph x{UNROLL} {sum(a.graph_ok for a in graphs)} of {len(graphs)} "
                 "within 3%")
    s = ours["samples"]
    med = {label: _median(ours, label) for label in s}
    clocks = []
    for a in rows:
        n = a.workload
        clocks.append([n, _f(a.nv_batch), _f(a.cgl_eager), _pct(a.batch_ratio), _f(med.get(f"{n}: held")),
                       _f(med.get(f"{n}: warm isolated")), _f(med.get(f"{n}: cold isolated")),
                       _f(med.get(f"{n}: cold rotating"))])
    lines += ["", "Where the clocks differ (µs per launch, medians): nvbench's batch and cugraphlab's eager loop are "
                  "paced by the Python launch; held, isolated and rotating are the GPU's alone:",
              format_table(["workload", "nvbench batch", "cgl eager loop", "diff", "cgl held (warm)",
                            "cgl warm isolated", "cgl cold isolated", "cgl cold rotating"], clocks,
                           align="lrrrrrrr")]
    only = []
    for a in rows:
        n = a.workload
        host, c = med.get(f"{n}: held host"), med.get(f"{n}: C loop host")
        eager_wall, graph_wall = med.get(f"{n}: eager loop wall"), med.get(f"{n}: graph x{UNROLL} wall")
        only.append([n, _f(host), _f(c), _f(host - c if host is not None and c is not None else None),
                     _f(eager_wall), _f(graph_wall),
                     _f(eager_wall - graph_wall if eager_wall is not None and graph_wall is not None else None)])
    lines += ["", "What only cugraphlab shows (µs per launch, medians):",
              format_table(["workload", "host per launch (Python)", "C loop (native floor)", "Python adds",
                            "eager wall", f"graph x{UNROLL} wall", "graph saves"], only, align="lrrrrrr")]
    why = (ours.get("facts") or {}).get("C loop")
    if why:
        lines.append(f"C loop: {why}")
    bad = [c["text"] for c in ours.get("checks") or [] if not c["ok"]]
    lines.append(f"checks: {len(ours.get('checks') or []) - len(bad)} of {len(ours.get('checks') or [])} bit-exact"
                 + ("" if not bad else "; FAILED: " + "; ".join(bad)))
    return "\n".join(lines)
