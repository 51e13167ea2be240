"""A synthetic ``cugraphlab scaling`` record with known costs (lines of 1..4096 nodes, a fork/join of 4 branches),
for the analysis and the report tests."""
from __future__ import annotations

from cugraphlab.bench.scaling.sweep import DEFAULT_LENGTHS, ScalingResult
from cugraphlab.bench.stats.summary import summarize
from scaling_pairs import instantiate_pairs, launch_pairs


def _point(topology, length, width, nodes, costs):
    return {"topology": topology, "length": length, "width": width, "nodes": nodes, "ok": True,
            "series": "line" if topology == "line" else f"forkjoin:w{width}",
            "summaries": {k: summarize([v], unit="us", clock="x").to_dict() for k, v in costs.items()}}


def synthetic_record(launch=lambda n: 1.8 + 0.00001 * n, python_factor: float | None = None) -> ScalingResult:
    """Known costs per point; with ``python_factor`` also raw Python/C pairs on the line points (Python instantiate
    ``python_factor`` times the C one, C 8 + 0.85 µs a node; held launch Python ``launch(n)``, C 1.5 µs)."""
    r = ScalingResult(config={"work": "empty", "points": 0}, env={"gpu": {"name": "Fake GPU"}})
    for L in DEFAULT_LENGTHS:
        costs = {"capture_us": 5 + 2.0 * L, "build_us": 4 + 1.5 * L, "instantiate_us": 8 + 0.9 * L,
                 "upload_total_us": 6 + 0.1 * L, "held_launch_us": launch(L), "repeat_launch_api_us": launch(L),
                 "device_us": 2 + 0.5 * L, "eager_us_per_iter": 4.0 * L + 6, "graph_us_per_iter": 2 + 0.55 * L,
                 "exec_bytes": 2048.0 * L}
        r.points.append(_point("line", L, 1, L, costs))
        if python_factor is not None:
            r.points[-1]["paired"] = {"instantiate": instantiate_pairs(8 + 0.85 * L, python_factor, seed=L),
                                      "launch": launch_pairs(launch(L), 1.5, seed=L)}
        r.keep_samples(f"line:L{L}:held_launch_us", [launch(L) * (1 + 0.002 * k) for k in (-1, 0, 1)])
        if L >= 4:
            costs = dict(costs, capture_us=costs["capture_us"] + 10)
            r.points.append(_point("forkjoin", L, 4, L + 2, costs))
    return r
