"""benchmarks/scaling.py's reading of a scaling result against its goals (the record carries figures, not goals):
the one helper the scaling tests share."""
from __future__ import annotations

LAUNCH_GOAL_US, INSTANTIATE_GOAL = 2.0, 0.10


def goals_of(r) -> dict:
    """``evaluate_goals`` of a ScalingResult or its dict, with the benchmark's thresholds."""
    from cugraphlab.bench.scaling.paired import evaluate_goals

    d = r if isinstance(r, dict) else r.to_dict()
    return evaluate_goals(d["points"], d["paired"], d.get("native"), launch_us=LAUNCH_GOAL_US,
                          instantiate_within=INSTANTIATE_GOAL)
