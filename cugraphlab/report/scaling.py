"""Text, CSV rows and the log-log figure of ``cugraphlab scaling`` (a record in; never opens a Device).

``render_scaling(result)``: a table per topology (per width for fork/join) of the main costs against nodes, then the
fits (intercept and slope per node with their bootstrap intervals, log-log exponent), graph launch against NVIDIA's
model (bench.scaling.model: both straight-line launch series fitted, the launch path the driver is on), how far each
launch series is from flat, break-even replays against eager launches, the unrolling pay-off, the paired Python/C
table (instantiate and held launch per point, with intervals, and the per-node slope ratio), the goals and module
loading.
``plot_scaling(result, stem)``: one log-log panel per cost, a curve per series with its fitted line dashed.
``write_scaling_json(path, result)``: the record as indented JSON with each innermost list or object on one line
(the raw samples are most of a record: one number a line, a default sweep's file would pass 1 MB).
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Mapping

from ..core.errors import InvalidArgumentError
from .tables import format_table

__all__ = ["render_scaling", "goal_lines", "plot_scaling", "csv_rows", "write_scaling_json", "TABLE_COSTS", "PLOT_COSTS"]

# the columns of the per-topology table: (cost key, header)
TABLE_COSTS = (("capture_us", "capture"), ("build_us", "build"), ("instantiate_us", "instantiate"),
               ("upload_api_us", "upload"), ("first_launch_total_us", "1st launch"),
               ("repeat_launch_api_us", "launch API"), ("held_launch_us", "held launch"),
               ("device_us", "device/graph"), ("eager_us_per_iter", "eager/iter"),
               ("graph_us_per_iter", "graph/iter"))
PLOT_COSTS = ("capture_us", "build_us", "instantiate_us", "upload_total_us", "first_launch_total_us",
              "held_launch_us", "device_us", "exec_bytes")
_FIT_COSTS = ("capture_us", "build_us", "instantiate_us", "upload_api_us", "first_launch_total_us",
              "repeat_launch_api_us", "held_launch_us", "device_us", "exec_bytes", "eager_us_per_iter",
              "graph_us_per_iter")
_TITLES = {"capture_us": "capture", "build_us": "explicit build", "instantiate_us": "instantiate",
           "upload_api_us": "upload (API)", "upload_total_us": "upload until complete",
           "first_launch_api_us": "first launch (API)", "first_launch_total_us": "first launch until complete",
           "uploaded_launch_api_us": "launch after upload (API)", "repeat_launch_api_us": "repeat launch (API)",
           "repeat_launch_total_us": "repeat launch until complete", "held_launch_us": "cuGraphLaunch, device held",
           "device_us": "device per graph", "exec_bytes": "executable memory",
           "eager_us_per_iter": "eager per iteration", "graph_us_per_iter": "graph replay per iteration"}


def _as_dict(result) -> Mapping[str, Any]:
    return result.to_dict() if hasattr(result, "to_dict") else result


def _series_name(key: str) -> str:
    return "straight line" if key == "line" else f"fork/join, {key.split(':w')[1]} branches"


def _series(d: Mapping) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for p in d.get("points", []):
        out.setdefault(p.get("series") or ("line" if p["topology"] == "line" else f"forkjoin:w{p['width']}"),
                       []).append(p)
    return {k: sorted(v, key=lambda p: p["nodes"]) for k, v in sorted(out.items(), key=lambda kv: _order(kv[0]))}


def _order(key: str) -> tuple:
    return (0, 0) if key == "line" else (1, int(key.split(":w")[1]))


def _med(p: Mapping, cost: str) -> float | None:
    s = p.get("summaries", {}).get(cost)
    return None if s is None else s.get("median")


def _num(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    av = abs(v)
    if av >= 1000:
        return f"{v:,.0f}"
    if av >= 100:
        return f"{v:.1f}"
    return f"{v:.{digits}g}" if av < 1 else f"{v:.2f}"


def _bytes(v: float | None) -> str:
    if v is None:
        return "n/a"
    if v >= 1 << 20:
        return f"{v / (1 << 20):.1f} MiB"
    if v >= 1024:
        return f"{v / 1024:.0f} KiB"
    return f"{v:.0f} B"


def _ci(ci, scale: float = 1.0) -> str:
    if not ci or any(c is None for c in ci):
        return ""
    return f" [{_num(ci[0] * scale)}, {_num(ci[1] * scale)}]"


def render_scaling(result, written=()) -> str:
    """The whole report as text; ``written``: files already written, listed at the end."""
    d = _as_dict(result)
    c = d.get("config", {})
    env = d.get("env", {})
    gpu = (env.get("gpu") or {}).get("name", "GPU")
    drv = env.get("driver") or {}
    work = "empty kernel" if c.get("work") == "empty" else f"chain of 4 ops on {c.get('size', 0):,} floats " \
                                                             f"(lengths in iterations)"
    lines = [f"cugraphlab scaling: {gpu}, driver {drv.get('release') or '?'} (CUDA {drv.get('cuda', '?')}), "
             f"work: {work}; {c.get('points', len(d.get('points', [])))} points in {d.get('elapsed_s', 0):.0f} s",
             "µs, medians (memory: the largest drop of free memory over samples, since the driver reuses freed "
             "memory); capture/build/instantiate/upload/launch API: perf_counter_ns around each call; 1st launch"
             ": not uploaded, until the stream's sync returns; held launch: K cuGraphLaunch behind a spinning "
             "kernel / K; device/graph: %globaltimer, release to stamp / K; eager/iter and graph/iter: R "
             "iterations back to back until sync / R"]
    for key, pts in _series(d).items():
        rows = []
        for p in pts:
            ok = "ok" if p.get("ok") else "FAILED"
            rows.append([p["length"], p["nodes"], *[_num(_med(p, k)) for k, _ in TABLE_COSTS],
                         _bytes((p.get("summaries", {}).get("exec_bytes") or {}).get("max")), ok])
        lines += ["", f"{_series_name(key)}:",
                  format_table(["units", "nodes", *[h for _, h in TABLE_COSTS], "memory", "check"], rows)]
    lines += ["", "fits: cost = a + b * nodes (weighted by relative error; 95% bootstrap intervals); p: log-log "
                  "exponent (0 flat, 1 proportional)"]
    rows = []
    for cost in _FIT_COSTS:
        for key, f in (d.get("fits", {}).get(cost) or {}).items():
            unit_b = "B/node" if cost == "exec_bytes" else "ns/node"
            scale = 1.0 if cost == "exec_bytes" else 1e3
            rows.append([_TITLES[cost], _series_name(key),
                         _num(f.get("intercept")) + _ci(f.get("intercept_ci")),
                         f"{_num(None if f.get('slope') is None else f['slope'] * scale)}"
                         f"{_ci(f.get('slope_ci'), scale)} {unit_b}",
                         _num(f.get("exponent"), 2) + _ci(f.get("exponent_ci"))])
    if rows:
        lines.append(format_table(["cost", "series", "a (intercept)", "b (slope)", "p"], rows, align="llrrr"))
    lines += _launch_lines(d) + _payoff_lines(d)
    lines += _paired_lines(d.get("paired") or {}, d.get("native") or {}, (d.get("config") or {}).get("held"))
    if d.get("goals"):  # an older record's goals (the package's records carry figures; benchmarks/scaling.py judges)
        lines += ["", "goals:"] + goal_lines(d["goals"])
    ml = d.get("module_loading") or {}
    if ml:
        lines += ["", f"module loading: CUDA_MODULE_LOADING={ml.get('CUDA_MODULE_LOADING') or 'unset'} "
                      f"({ml.get('effective')}); {ml.get('note', '')}"]
        if "first_instantiate_us" in ml:
            lines.append(f"first cuGraphInstantiate in the process {ml['first_instantiate_us']:.1f} µs, later "
                         f"{ml['later_instantiate_us']:.1f} µs (1 node)")
    bad = [p for p in d.get("points", []) if not p.get("ok")]
    if bad:
        lines += ["", "CHECKS FAILED:"]
        for p in bad:
            lines.append(f"  {p['topology']} W={p['width']} L={p['length']}: structure {p.get('structure')}, "
                         f"mismatches {p.get('mismatches')}, hold {p.get('held')}; {'; '.join(p.get('failures', []))}")
    if written:
        lines += ["", "wrote " + ", ".join(str(w) for w in written)]
    return "\n".join(lines)


def _launch_lines(d: Mapping) -> list[str]:
    """Graph launch against NVIDIA's model (read now where the record predates it), then how far each launch series
    is from flat (a description)."""
    lines: list[str] = []
    model = d.get("launch_model")
    if not model and d.get("points"):  # a record written before it carried the model: read it now
        from ..bench.scaling.analysis import launch_model_of

        model = launch_model_of(d)
    lines += _model_lines(model or {})
    growth = [(cost, key, v) for cost in ("held_launch_us", "repeat_launch_api_us", "device_us")
              for key, v in (d.get("verdict", {}).get(cost) or {}).items()]
    if growth:
        lines += ["", "growth over the sweep (a description: within ±5% of the smallest size counts as flat; "
                      "NVIDIA's constant-time claim is the model above, whose own line grows too):"]
        lines += [f"  {_TITLES[cost]}, {_series_name(key)}: {v.get('text')}" for cost, key, v in growth]
    return lines


def _payoff_lines(d: Mapping) -> list[str]:
    """Break-even replays against eager launches, and the unrolling pay-off."""
    lines: list[str] = []
    be = d.get("break_even", [])
    if be:
        lines += ["", "break-even: replays after which the graph has repaid its capture + instantiate against eager "
                      "launches of the same work (never: a replay saves nothing)"]
        rows = [[_series_name(r["series"]), r["length"], r["nodes"], _num(r["setup_us"]), _num(r["eager_us"]),
                 _num(r["graph_us"]), _never(r["replays"]), _never(r["replays_with_upload"]),
                 _never(r["replays_explicit"])] for r in be]
        lines.append(format_table(["series", "units", "nodes", "setup µs", "eager µs/it", "graph µs/it",
                                   "replays", "+upload", "explicit"], rows))
    un = d.get("unroll", [])
    if un:
        base = un[0]["base_length"]
        lines += ["", f"unrolling: K iterations (of {base} unit{'s' if base > 1 else ''}) in one straight-line graph "
                      f"against replaying the one-iteration graph K times"]
        rows = [[u["k"], _num(u["us_per_iteration"]), _num(u["base_us_per_iteration"]), _num(u["extra_setup_us"]),
                 _never(u["replays"]), _never(u["iterations"])] for u in un]
        lines.append(format_table(["K", "µs/iter", "K=1 µs/iter", "extra setup µs", "pays off after replays",
                                   "(iterations)"], rows))
    return lines


def _model_lines(m: Mapping) -> list[str]:
    """The straight-line launch series against NVIDIA's model (bench.scaling.model): the fits of both series, their
    rise against the model's own, and which launch path the driver is on."""
    if not m:
        return []
    model = m.get("model") or {}
    new, old = model.get("12.6+") or {}, model.get("pre-12.6") or {}
    lo, hi = m.get("range", [4, 4096])
    out = ["", f"graph launch against NVIDIA's model (CUDA 12.6+, 'constant time launch for straight-line graphs': "
               f"a repeat cuGraphLaunch into an idle stream after upload costs about "
               f"{new.get('intercept_us', 2.5):g} µs + about {new.get('slope_us_per_node', 0.001) * 1e3:g} ns per "
               f"node; before 12.6 about {old.get('intercept_us', 2.0):g} µs + "
               f"{old.get('slope_us_per_node', 0.2) * 1e3:g} ns per node), straight line, {lo}..{hi:,} nodes, "
               f"fitted a + b * nodes (95% bootstrap intervals):"]
    for cost, e in (m.get("series") or {}).items():
        name = _TITLES.get(cost, cost)
        if "fit" not in e:
            out.append(f"  {name}: {e.get('text', 'no verdict')}")
            continue
        f = e["fit"]
        n_lo, n_hi = e["nodes_range"]
        grow = e.get("growth")
        mg, at = e.get("model_growth") or {}, e.get("model_at_hi_us") or {}
        out.append(f"  {name}: a = {_num(f.get('intercept'))}{_ci(f.get('intercept_ci'))} µs, b = "
                   f"{_num(None if f.get('slope') is None else f['slope'] * 1e3)}{_ci(f.get('slope_ci'), 1e3)} "
                   f"ns/node; {_num(e['measured_us']['at_lo'])} µs at {n_lo} nodes, "
                   f"{_num(e['measured_us']['at_hi'])} at {n_hi:,}"
                   + ("" if grow is None else f" ({grow:+.0%})")
                   + (f"; the 12.6+ model {_num(at.get('12.6+'))} µs there ({mg['12.6+']:+.0%}), pre-12.6 "
                      f"{_num(at.get('pre-12.6'))} µs" if "12.6+" in mg else ""))
        out.append(f"  {name}, path: {(e.get('path') or {}).get('text', 'no verdict')}")
    drv = m.get("driver") or {}
    if drv.get("by_version"):
        out.append(f"  driver: CUDA {drv.get('cuda') or drv.get('version_int')} "
                   f"({'12.6 or later' if drv['by_version'] == '12.6+' else 'before 12.6'} by its version)")
    out.append(f"  verdict: {m.get('text', 'no verdict')}")
    return out


def _never(v) -> str:
    return "never" if v is None else f"{v:,}"


def _iv_text(iv, scale: float = 1.0, ratio: bool = False) -> str:
    """"1.82 [1.80, 1.85]" of an interval dict (median, lo, hi), "n/a" without one; ``ratio``: 3 decimals."""
    if not iv or iv.get("median") is None:
        return "n/a"
    if ratio:
        m = f"{iv['median']:.3f}"
        return m if iv.get("lo") is None else f"{m} [{iv['lo']:.3f}, {iv['hi']:.3f}]"
    m = _num(iv["median"] * scale)
    if iv.get("lo") is None or iv.get("hi") is None:
        return m
    return f"{m}{_ci([iv['lo'], iv['hi']], scale)}"


def _paired_lines(paired: Mapping, native: Mapping, held: Mapping | None) -> list[str]:
    """The paired Python/C table: per point the instantiate pair and the held-launch pair, with 95% intervals."""
    inst = {(e["series"], e["nodes"]): e for e in (paired.get("instantiate") or {}).get("points", [])}
    launch = {(e["series"], e["nodes"]): e for e in (paired.get("launch") or {}).get("points", [])}
    keys = sorted(set(inst) | set(launch), key=lambda k: (_order(k[0] or "line"), k[1]))
    if not keys:
        return []
    out = ["", "paired, Python against C (the same graph and moment; 95% intervals from a two-level bootstrap over "
               "samples or rounds):"]
    if native.get("unavailable"):
        out.append(f"  C loops: {native['unavailable']} (the Python figures stand alone)")
    if held:
        out.append(f"  held launches: {held.get('rounds')} of {held.get('planned_rounds')} rounds over every point "
                   f"({held.get('order')}), {held.get('pairs_per_round')} Python/C pairs a round, "
                   f"{held.get('seconds', 0):.1f} s")
    rows = []
    for k in keys:
        i, l = inst.get(k) or {}, launch.get(k) or {}
        rows.append([_series_name(k[0] or "line"), k[1], _iv_text(i.get("python_us")), _iv_text(i.get("c_us")),
                     _iv_text(i.get("ratio"), ratio=True), _iv_text(l.get("python_us")), _iv_text(l.get("c_us")),
                     _iv_text(l.get("difference_us"))])
    out.append(format_table(["series", "nodes", "inst. Python µs", "inst. C µs", "Python/C", "held Python µs",
                             "held C µs", "Python - C µs"], rows, align="lrrrrrrr"))
    slope = (paired.get("instantiate") or {}).get("slope")
    if slope:
        out.append(f"  instantiate per node, straight lines of {slope['nodes_range'][0]}..{slope['nodes_range'][1]} "
                   f"nodes: Python {_iv_text(slope['python_us_per_node'], 1e3)} ns, C "
                   f"{_iv_text(slope['c_us_per_node'], 1e3)} ns, ratio {_iv_text(slope['ratio'], ratio=True)}")
    return out


def _met(v) -> str:
    return "met" if v is True else ("NOT met" if v is False else "undecided")


def goal_lines(goals: Mapping) -> list[str]:
    """The lines of ``bench.scaling.paired.evaluate_goals``' answer (benchmarks/scaling.py's goals)."""
    out = []
    launch = goals.get("launch") or {}
    if launch:
        lo, hi = launch.get("range", [4, 128])
        if "worst_us" not in launch:
            out.append(f"  host graph launch <= {launch.get('goal_us')} µs from {lo} to {hi} nodes: no verdict "
                       f"({launch.get('note', '')})")
        else:
            worst = {"median": launch["worst_us"], "lo": (launch.get("worst_ci") or [None, None])[0],
                     "hi": (launch.get("worst_ci") or [None, None])[1]}
            text = (f"  host graph launch <= {launch['goal_us']} µs from {lo} to {hi} nodes (device held): "
                    f"{_met(launch['met'])}, worst {_iv_text(worst)} µs at {launch['at_nodes']} nodes")
            if "native_launch_us" in launch:
                text += (f"; C {launch['native_launch_us']:.2f} µs at worst, Python - C at most "
                         f"{launch.get('worst_difference_us', float('nan')):.2f} µs (paired)")
            elif not launch.get("paired"):
                text += " (Python alone, unpaired)"
            if launch.get("met") is None and launch.get("note"):
                text += f"; {launch['note']}"
            out.append(text)
    inst = goals.get("instantiate_vs_native") or {}
    if inst:
        py = inst.get("python_us_per_node")
        if not inst.get("paired"):
            py_text = "n/a" if py is None else f"{py * 1e3:.0f} ns/node"
            out.append(f"  Python-side instantiate within {inst.get('goal', 0.1):.0%} of native per node: no "
                       f"verdict, Python {py_text}; {inst.get('note', '')}")
        else:
            ratio = {"median": inst["ratio"], "lo": inst["ratio_ci"][0], "hi": inst["ratio_ci"][1]}
            pts = [p["ratio"]["median"] for p in inst.get("points", []) if p.get("ratio")]
            out.append(f"  Python-side instantiate within {inst['goal']:.0%} of native per node (paired slope "
                       f"ratio): {_met(inst['met'])}: Python/C x{_iv_text(ratio, ratio=True)}; Python "
                       f"{py * 1e3:.0f} ns/node, C {inst['native_us_per_node'] * 1e3:.0f} ns/node"
                       + ("; Python slower than C (the interval excludes 1)" if inst.get("python_slower") else "")
                       + (f"; per point x{min(pts):.3f} .. x{max(pts):.3f}" if pts else ""))
    return out or ["  (none evaluated)"]


def csv_rows(result) -> list[dict]:
    """One flat row per point: shape, nodes, checks, the median of every cost and per node, break-even."""
    d = _as_dict(result)
    be = {(r["series"], r["length"]): r for r in d.get("break_even", [])}
    rows = []
    for p in d.get("points", []):
        key = p.get("series") or ("line" if p["topology"] == "line" else f"forkjoin:w{p['width']}")
        row = {"series": key, "topology": p["topology"], "width": p["width"], "length": p["length"],
               "work": p.get("work"), "nodes": p["nodes"], "edges": p.get("edges"), "ok": p.get("ok"),
               "verified": p.get("verified"), "held_launches": (p.get("held") or {}).get("held_launches")}
        for cost, s in p.get("summaries", {}).items():
            row[cost] = s.get("median")
            row[f"{cost}_p5"] = s.get("p5")
            row[f"{cost}_p95"] = s.get("p95")
            row[f"{cost}_n"] = s.get("n")
        for cost, s in p.get("summaries", {}).items():
            row[f"{cost}_per_node"] = s["median"] / p["nodes"] if p.get("nodes") else None
        r = be.get((key, p["length"]))
        if r:
            row.update(break_even_replays=r["replays"], break_even_replays_with_upload=r["replays_with_upload"])
        rows.append(row)
    return rows


def plot_scaling(result, stem) -> list[Path]:
    """STEM.png (150 dpi) and STEM.svg: a log-log panel per cost (PLOT_COSTS) against nodes, one curve per series
    (medians, p5..p95 bars), the fitted a + b*nodes dashed. InvalidArgumentError when matplotlib is missing."""
    import numpy as np

    from .plots import pyplot, save

    plt = pyplot()  # the one loader: PlotUnavailableError (bad input, exit 2) with the pip hint

    d = _as_dict(result)
    series = _series(d)
    costs = [c for c in PLOT_COSTS if any(_med(p, c) for pts in series.values() for p in pts)]
    if not costs:
        raise InvalidArgumentError("the record has no point to plot")
    cols = 4 if len(costs) > 4 else len(costs)
    rows = -(-len(costs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.5 * rows), squeeze=False)
    cmap = plt.get_cmap("tab10")
    colors = {k: cmap(i % 10) for i, k in enumerate(series)}
    for ax, cost in zip(axes.flat, costs):
        for key, pts in series.items():
            pts = [p for p in pts if (_med(p, cost) or 0) > 0]
            if not pts:
                continue
            x = np.array([p["nodes"] for p in pts], dtype=float)
            y = np.array([_med(p, cost) for p in pts])
            lo = np.array([p["summaries"][cost].get("p5", v) for p, v in zip(pts, y)])
            hi = np.array([p["summaries"][cost].get("p95", v) for p, v in zip(pts, y)])
            ax.errorbar(x, y, yerr=[np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)], marker="o", markersize=3,
                        linewidth=1.2, capsize=2, color=colors[key], label=_series_name(key))
            f = (d.get("fits", {}).get(cost) or {}).get(key)
            if f and f.get("slope") is not None and f.get("intercept") is not None:
                xs = np.geomspace(x.min(), x.max(), 50)
                ys = f["intercept"] + f["slope"] * xs
                ok = ys > 0
                ax.plot(xs[ok], ys[ok], linestyle="--", linewidth=0.9, color=colors[key], alpha=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(_TITLES[cost], fontsize=9)
        ax.set_xlabel("nodes", fontsize=8)
        ax.set_ylabel("bytes" if cost == "exec_bytes" else "µs", fontsize=8)
        ax.grid(True, which="both", alpha=0.25)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(costs):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7, loc="upper left")
    c = d.get("config", {})
    gpu = (d.get("env", {}).get("gpu") or {}).get("name", "GPU")
    drv = (d.get("env", {}).get("driver") or {}).get("release") or "?"
    fig.suptitle(f"What a CUDA graph costs as it grows ({gpu}, driver {drv}; work: {c.get('work', '?')}); "
                 f"dashed: fitted a + b*nodes", fontsize=10)
    fig.tight_layout()
    return save(fig, stem)


_INNERMOST = re.compile(r"[\[{][^\[\]{}]*[\]}]")  # a list or object holding no list or object


def write_scaling_json(path, result) -> Path:
    """Write a scaling record (a ScalingResult or its dict) to ``path`` as ``core.files.write_json`` does
    (indented, strict JSON, atomic), with each innermost list or object (raw samples, a summary, an interval) on
    one line. Returns the path written."""
    from ..core.files import to_jsonable, write_text

    text = json.dumps(to_jsonable(result), indent=2, ensure_ascii=False, allow_nan=False)
    # JSON strings never hold a raw newline, so only the indentation between items goes
    text = _INNERMOST.sub(lambda m: re.sub(r"\n\s*", " ", m.group(0)).replace("[ ", "[").replace("{ ", "{")
                          .replace(" ]", "]").replace(" }", "}"), text)
    return write_text(path, text + "\n")
