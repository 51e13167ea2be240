"""Is my graph reused, and does it pay off? The replay watch's table, per capture site (the user's line that began
the capture): captures, instantiations, replays and exec updates, the host cost of each, the graph memory it holds,
and the break-even against the same work eager.

Every cost is host time (perf_counter_ns): of a capture from its begin to its end (PyTorch's capture_end
instantiates, so a torch capture's figure includes its instantiate), of an instantiate, a launch (replay) or an
update, the call itself. Break-even (as ``cugraphlab measure``'s, bench.measure.result): the graph costs its set-up
once per capture (capture + instantiate + updates, here the site's mean per capture), then one replay per use
instead of the eager work; it has repaid the set-up after ``ceil(setup / (eager - replay))`` replays. The eager
figure is the user's (``cugraphlab doctor --replay --eager-us``) or a measurement's (benchmarks/doctor_payoff.py
takes cugraphlab measure's). Pure: no GPU, no stack needed.
"""
from __future__ import annotations

import math

__all__ = ["site_stats", "payoff", "verdict"]


def _new(e) -> dict:
    return {"site": e.where, "stack": e.stack, "captures": 0, "ok": 0, "capture_s": 0.0, "instantiations": 0,
            "instantiate_s": 0.0, "replays": 0, "replay_s": 0.0, "updates": 0, "refused": 0, "update_s": 0.0,
            "refusals": [], "graph_mem_used": None, "graph_mem_reserved": None, "pool_bytes": None}


def site_stats(events, eager_us: float | dict | None = None) -> list[dict]:
    """The table, one dict per site, in the order the sites were first seen. ``eager_us``: the host µs of the same
    work done eagerly, one figure for every site or ``{site: µs}``; with it each site carries its break-even
    (``payoff``) and ``verdict``. A site instantiated about as often as its graphs are replayed re-captures on
    every iteration (pytorch #171672): ``recaptures_every_replay``; one that captures each step but updates a
    single executable (cuGraphExecUpdate accepted) is not."""
    sites: dict[str, dict] = {}
    begins = {e.capture: e for e in events if e.kind == "begin"}
    site_of_graph: dict[str, str] = {}
    for e in events:
        if e.kind == "begin":  # a stack's capture (PyTorch, CuPy, cuda.core)
            site_of_graph[e.call] = e.where
            sites.setdefault(e.where, _new(e))
        elif e.kind == "end" and e.capture in begins:
            s = sites[begins[e.capture].where]
            s["captures"] += 1
            s["ok"] += int(e.ok)
            s["capture_s"] += e.seconds
            if e.ok and s["stack"] == "torch":
                s["instantiations"] += 1  # CUDAGraph.capture_end instantiates: its cost is in capture_s
            if e.mem:  # PyTorch: what its caching allocator reserved during the capture (the graph's private pool)
                s["pool_bytes"] = (s["pool_bytes"] or 0) + e.mem
        elif e.kind == "replay" and e.stack != "cugraphlab" and e.call in site_of_graph:
            s = sites[site_of_graph[e.call]]
            s["replays"] += e.count
            s["replay_s"] += e.seconds
        elif e.kind in ("captured", "instantiated", "update", "replay"):  # cugraphlab's own (graphs.doctor.launches)
            s = sites.setdefault(e.where, _new(e))
            if e.kind == "captured":
                s["captures"] += 1
                s["ok"] += 1
                s["capture_s"] += e.seconds
            elif e.kind == "instantiated":
                s["instantiations"] += 1
                s["instantiate_s"] += e.seconds
            elif e.kind == "update":
                s["updates"] += 1
                s["update_s"] += e.seconds
                if not e.ok:
                    s["refused"] += 1
                    if len(s["refusals"]) < 4:
                        s["refusals"].append(f"{e.code}: {e.text} (at {e.source})")
            else:
                s["replays"] += e.count
                s["replay_s"] += e.seconds
                if e.mem or e.mem_reserved:  # the device's graph memory after this executable's first launch
                    s["graph_mem_used"] = max(s["graph_mem_used"] or 0, e.mem)
                    s["graph_mem_reserved"] = max(s["graph_mem_reserved"] or 0, e.mem_reserved)
    for s in sites.values():
        # instantiated again for (about) every replay. The other stacks' captures end in a ready graph (PyTorch
        # instantiates in capture_end), so each counts; a cugraphlab site counts its instantiations: one that
        # captures each step but updates a single executable (accepted updates, llama.cpp's pattern) is not flagged
        made = s["instantiations"] if s["stack"] == "cugraphlab" else max(s["instantiations"], s["ok"])
        s["recaptures_every_replay"] = made > 2 and s["replays"] <= made + 1
        eager = eager_us.get(s["site"]) if isinstance(eager_us, dict) else eager_us
        s.update(payoff(s, eager))
    return list(sites.values())


def payoff(s: dict, eager_us: float | None) -> dict:
    """Break-even of one site (``site_stats``'s dict) against ``eager_us`` host µs per use of the eager work:
    ``{"eager_us", "setup_us", "replay_us", "break_even", "verdict"}`` (``break_even``: replays per capture needed,
    None when it never comes)."""
    captures = max(1, s["captures"])
    setup_us = 1e6 * (s["capture_s"] + s["instantiate_s"] + s["update_s"]) / captures
    replay_us = 1e6 * s["replay_s"] / s["replays"] if s["replays"] else None
    out = {"eager_us": eager_us, "setup_us": setup_us, "replay_us": replay_us, "break_even": None}
    out["verdict"] = verdict(setup_us, replay_us, eager_us, s["replays"], s["captures"], out)
    return out


def verdict(setup_us: float, replay_us: float | None, eager_us: float | None, replays: int, captures: int,
            out: dict | None = None) -> str:
    """"pays off after N replays" / "has paid off" / "never pays off here", with the figures that decide it
    (``out["break_even"]`` is set to N where there is one)."""
    if eager_us is None:
        return "no eager time: give it (cugraphlab doctor --replay --eager-us US) for the break-even"
    if replay_us is None:
        return f"never replayed: {setup_us:.1f} us of set-up per capture spent for nothing"
    saved = eager_us - replay_us
    if saved <= 0:
        return (f"never pays off here: a replay costs {replay_us:.1f} us of host time, the eager work "
                f"{eager_us:.1f} us")
    n = max(1, math.ceil(setup_us / saved - 1e-9))  # 92.00000000000001 (the sum of float seconds) is 92
    if out is not None:
        out["break_even"] = n
    per_capture = replays / max(1, captures)
    if per_capture >= n:
        return (f"has paid off: break-even after {n} replays per capture ({setup_us:.1f} us set-up / {saved:.2f} us "
                f"saved per replay), {per_capture:.0f} made")
    if captures > 1:
        return (f"never pays off here: re-captured every {per_capture:.1f} replays, and each capture needs {n} "
                f"({setup_us:.1f} us set-up / {saved:.2f} us saved per replay): capture once and replay")
    return f"pays off after {n} replays ({replays} so far; {setup_us:.1f} us set-up / {saved:.2f} us saved per replay)"
