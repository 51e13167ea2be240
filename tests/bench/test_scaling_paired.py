"""The paired Python/C figures of ``cugraphlab scaling`` (bench.scaling_paired) on synthetic pairs with known answers:
a Python path 10% slower than C is found, equal paths meet the goals, the launch goal reads the paired intervals."""
from __future__ import annotations

import pytest

from cugraphlab.bench.scaling.paired import (
    evaluate_goals,
    pair_stats,
    paired_analysis,
    slope_ratio,
    verdict_of,
)
from scaling_pairs import instantiate_pairs, launch_pairs

NODES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]


#: the thresholds benchmarks/scaling.py judges with (the record carries figures, not goals)
LAUNCH_GOAL_US, INSTANTIATE_GOAL = 2.0, 0.10


def goals(points, paired, native=None):
    return evaluate_goals(points, paired, native, launch_us=LAUNCH_GOAL_US, instantiate_within=INSTANTIATE_GOAL)


def _points(factor: float, launch_python=1.8, launch_c=1.5, seed=0) -> list[dict]:
    pts = []
    for i, n in enumerate(NODES):
        pts.append({"topology": "line", "series": "line", "length": n, "width": 1, "nodes": n,
                    "summaries": {"held_launch_us": {"median": launch_python}},
                    "paired": {"instantiate": instantiate_pairs(8.0 + 1.15 * n, factor, seed=seed + i),
                               "launch": launch_pairs(launch_python, launch_c, seed=seed + 100 + i)}})
    return pts


def test_pair_stats_recover_a_known_ratio_and_difference():
    s = pair_stats(launch_pairs(1.8, 1.5, rounds=5, pairs=4))
    assert s["pairs"] == 20 and s["python_us"]["groups"] == 5
    assert s["python_us"]["median"] == pytest.approx(1.8, rel=0.01)
    assert s["c_us"]["median"] == pytest.approx(1.5, rel=0.01)
    assert s["difference_us"]["lo"] <= 0.3 <= s["difference_us"]["hi"] + 0.02
    assert s["ratio"]["lo"] > 1.1 and s["ratio"]["median"] == pytest.approx(1.2, rel=0.02)
    assert s["python_first"] == 10  # (r + j) even in half the pairs


def test_a_per_pair_ratio_divides_out_the_moment_the_sides_share():
    """The moment moves both sides by up to ±20% from sample to sample; the pairs' ratio stays within 1%."""
    s = pair_stats(instantiate_pairs(100.0, 1.10, samples=20))
    assert s["python_us"]["hi"] - s["python_us"]["lo"] > 0.03 * s["python_us"]["median"]
    r = s["ratio"]
    assert r["lo"] <= 1.10 <= r["hi"] and r["hi"] - r["lo"] < 0.02 and r["groups"] == 20


@pytest.mark.parametrize("factor", [1.0, 1.10, 1.25])
def test_the_slope_ratio_finds_the_python_factor(factor):
    sr = slope_ratio([(n, p["paired"]["instantiate"]) for n, p in zip(NODES, _points(factor))])
    r = sr["ratio"]
    assert r["median"] == pytest.approx(factor, rel=0.01) and r["lo"] <= factor * 1.003 and r["hi"] >= factor * 0.997
    assert r["hi"] - r["lo"] < 0.03
    assert sr["c_us_per_node"]["median"] == pytest.approx(1.15, rel=0.02)
    assert sr["python_us_per_node"]["median"] == pytest.approx(1.15 * factor, rel=0.02)
    assert sr["points"] == len(NODES) and sr["nodes_range"] == [1, 4096]


def test_equal_paths_meet_the_goals():
    pts = _points(1.0)
    g = goals(pts, paired_analysis(pts))
    inst = g["instantiate_vs_native"]
    assert inst["paired"] and inst["met"] is True and inst["python_slower"] is False
    assert inst["ratio_ci"][0] <= 1.0 <= inst["ratio_ci"][1]
    assert len(inst["points"]) == len(NODES)
    launch = g["launch"]
    assert launch["met"] is True and launch["paired"] and [r["nodes"] for r in launch["points"]] == [4, 8, 16, 32,
                                                                                                       64, 128]
    assert launch["worst_us"] == pytest.approx(1.8, rel=0.02) and launch["worst_ci"][1] <= LAUNCH_GOAL_US
    assert launch["native_launch_us"] == pytest.approx(1.5, rel=0.02)
    assert launch["worst_difference_us"] == pytest.approx(0.3, abs=0.05)


def test_a_python_path_ten_percent_slower_is_found():
    pts = _points(1 + INSTANTIATE_GOAL)
    inst = goals(pts, paired_analysis(pts))["instantiate_vs_native"]
    assert inst["python_slower"] is True and inst["ratio_ci"][0] > 1.05
    assert inst["ratio"] == pytest.approx(1.10, rel=0.01)
    assert inst["met"] is not True  # on the limit: not shown to be within it
    assert all(p["ratio"]["lo"] > 1.05 for p in inst["points"])


def test_a_python_path_far_slower_fails_and_a_slow_launch_fails():
    pts = _points(1.25, launch_python=2.4)
    g = goals(pts, paired_analysis(pts))
    assert g["instantiate_vs_native"]["met"] is False and g["instantiate_vs_native"]["ratio_ci"][0] > 1.1
    assert g["launch"]["met"] is False and g["launch"]["worst_ci"][0] > LAUNCH_GOAL_US


def test_a_launch_interval_across_the_goal_is_undecided():
    pts = _points(1.0, launch_python=2.0)
    for p in pts:  # wide noise around exactly the goal
        p["paired"]["launch"] = launch_pairs(2.0, 1.5, noise=0.05, seed=p["nodes"])
    launch = goals(pts, paired_analysis(pts))["launch"]
    assert launch["met"] is None and "undecided" in launch["note"]


def test_without_pairs_the_goals_say_why():
    pts = [{"topology": "line", "nodes": n, "length": n, "summaries": {"held_launch_us": {"median": 1.7}}}
           for n in NODES]
    g = goals(pts, paired_analysis(pts), {"unavailable": "UnsupportedError: no C compiler"})
    assert g["instantiate_vs_native"]["met"] is None and "no C compiler" in g["instantiate_vs_native"]["note"]
    assert g["launch"]["paired"] is False and g["launch"]["met"] is True and g["launch"]["worst_us"] == 1.7
    assert g["launch"]["worst_ci"] == [None, None]  # the median alone: no interval
    assert goals([], {})["launch"]["met"] is None


def test_verdict_of_an_interval():
    assert verdict_of(0.9, 1.05, 1.1) is True and verdict_of(1.12, 1.3, 1.1) is False
    assert verdict_of(1.05, 1.15, 1.1) is None and verdict_of(None, 1.0, 1.1) is None
