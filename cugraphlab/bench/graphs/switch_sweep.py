"""Why a SWITCH costs what it costs: the rows that take it apart, and the paired contrasts between them.

``cugraphlab switch`` measures one SWITCH over four *different* bodies against one IF node. Its index-0 row runs the
same four-kernel chain as the IF row, yet three things differ at once: the decision kernel (cond_switch writes the
index, cond_one_hot writes 1 for index 0), the node (SWITCH, IF), and the number of bodies the node holds (4, 1).
The sweep varies one at a time, on bodies that are all the same chain (``experiment.branches.identical_chains``:
each body its own output buffers, so every timed loop is still checked for which body ran, bit-exact):

    IF node over chain #0, decided by cond_one_hot (index 0)         the reference of the sweep
    IF node over chain #0, decided by cond_switch (index 1)          the decision kernel alone changed
    SWITCH of K chains (K = 1, 2, 3, 4, 8), index 0 and index K-1    the node, then the count, then the position
    SWITCH of 2 chains decided by cond_one_hot (index 0: body 1)     the decision kernel inside a SWITCH
    the 4-variant SWITCH with the chain last (index K-1)             the mixed SWITCH, the chain's position moved

Every row runs in the same loop as ``cugraphlab switch``'s own rows (one process, one chain, rounds rotated), so
each contrast below is the median of per-round differences with its interval and sign test
(``bench.stats.paired_diff``): what the change costs, and whether a difference is shown at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...core.errors import InvalidArgumentError
from ...experiment.branches import MAX_BRANCHES, selected_body

__all__ = ["Plan", "DEFAULT_SWEEP", "sweep_ks", "sweep_plans", "sweep_checks", "sweep_contrasts", "switch_of",
           "IF_REF", "IF_BY_SWITCH", "SWITCH_ONE_HOT", "MIXED_CHAIN_LAST"]

DEFAULT_SWEEP = (1, 2, 3, 4, 8)
IF_REF = "IF over chain #0 (cond_one_hot)"
IF_BY_SWITCH = "IF over chain #0 (cond_switch)"
SWITCH_ONE_HOT = "SWITCH of 2 chains (cond_one_hot), body 1"
MIXED_CHAIN_LAST = "SWITCH, chain last, index {last}"


@dataclass
class Plan:
    """One timed row: which executable of which BranchGraphs (``kit``; None: the record's main one), the index the
    host writes before the loop, and the check after it (``check()`` -> BranchCheck)."""

    name: str
    group: str
    graph: str
    index: int
    how: str
    check: object  # () -> BranchCheck
    key_k: object = None
    kit: object = None
    expected: int | None = field(default=None, compare=False)


def switch_of(k: int, index: int) -> str:
    """The row name of the SWITCH over ``k`` identical chains at ``index``."""
    return f"SWITCH of {k} chain{'s' if k != 1 else ''}, index {index}"


def sweep_ks(ks) -> tuple[int, ...]:
    """The body counts of the sweep, sorted, without repeats, each 1..MAX_BRANCHES (InvalidArgumentError)."""
    out = sorted({int(k) for k in ks})
    if any(isinstance(k, bool) or not 1 <= k <= MAX_BRANCHES for k in ks):
        raise InvalidArgumentError(f"sweep body counts must be 1..{MAX_BRANCHES}, got {list(ks)!r}")
    return tuple(out)


def _plan(name, kit, key, k, index, how, node, bodies, decide) -> Plan:
    want = selected_body(node, bodies, decide, index)
    kind = name
    return Plan(name, "sweep", key, index, how, lambda: kit.check_bodies(kind, want), key_k=k, kit=kit,
                expected=want)


def sweep_plans(kit, same, ks) -> list[Plan]:
    """The sweep's rows: ``same`` a BranchGraphs of identical chains (at least max(ks) of them, and 2), ``kit`` the
    main BranchGraphs (its 4-variant SWITCH with the chain moved last). Each plan knows the body that must run."""
    ks = sweep_ks(ks)
    if same.count < max(max(ks), 2):
        raise InvalidArgumentError(f"the identical-chains kit has {same.count} bodies; the sweep needs "
                                   f"{max(max(ks), 2)}")
    plans = [_plan(IF_REF, same, "if_by", (0, "cond_one_hot"), 0, "cond_one_hot -> IF (chain #0)", "IF", (0,),
                   "cond_one_hot"),
             _plan(IF_BY_SWITCH, same, "if_by", (0, "cond_switch"), 1,
                   "cond_switch (index 1) -> IF (chain #0)", "IF", (0,), "cond_switch")]
    for k in ks:
        bodies = tuple(range(k))
        for index in sorted({0, k - 1}):
            plans.append(_plan(switch_of(k, index), same, "switch_over", (bodies, "cond_switch"), index,
                               f"cond_switch -> SWITCH ({k} identical chain bod{'y' if k == 1 else 'ies'})", "SWITCH", bodies,
                               "cond_switch"))
    plans.append(_plan(SWITCH_ONE_HOT, same, "switch_over", ((0, 1), "cond_one_hot"), 0,
                       "cond_one_hot (index 0: value 1) -> SWITCH (2 chain bodies)", "SWITCH", (0, 1),
                       "cond_one_hot"))
    last = kit.count - 1
    order = tuple(range(1, kit.count)) + (0,)
    plans.append(_plan(MIXED_CHAIN_LAST.format(last=last), kit, "switch_over", (order, "cond_switch"), last,
                       f"cond_switch -> SWITCH ({kit.count} variant bodies, the chain moved last)", "SWITCH", order,
                       "cond_switch"))
    return plans


def sweep_checks(kit, same, ks) -> list:
    """Each sweep graph launched once per index on fresh inputs and checked (BranchCheck list): every SWITCH of K
    chains at every index 0..K (K: none runs), the IF node by cond_switch at 0 (none) and 1, the cond_one_hot
    SWITCH at 0 (body 1) and 1 (body 0), the mixed SWITCH with the chain last at every index."""
    out = []
    for k in sweep_ks(ks):
        bodies = tuple(range(k))
        for index in range(k + 1):
            out.append(same.run_exec("switch_over", (bodies, "cond_switch"), index, f"SWITCH of {k} chains",
                                     selected_body("SWITCH", bodies, "cond_switch", index)))
    for index in (0, 1):
        out.append(same.run_exec("if_by", (0, "cond_switch"), index, "IF (cond_switch)",
                                 selected_body("IF", (0,), "cond_switch", index)))
        out.append(same.run_exec("switch_over", ((0, 1), "cond_one_hot"), index, "SWITCH of 2 (cond_one_hot)",
                                 selected_body("SWITCH", (0, 1), "cond_one_hot", index)))
    order = tuple(range(1, kit.count)) + (0,)
    for index in range(kit.count + 1):
        out.append(kit.run_exec("switch_over", (order, "cond_switch"), index, "SWITCH, chain last",
                                selected_body("SWITCH", order, "cond_switch", index)))
    return out


def sweep_contrasts(ks, branches: int) -> list[tuple[str, str, str]]:
    """(what it isolates, row A, row B): each contrast is A - B per round. Only rows the sweep makes are named."""
    ks = sweep_ks(ks)
    out = [("decision kernel, IF node: cond_switch - cond_one_hot", IF_BY_SWITCH, IF_REF)]
    if 1 in ks:
        out.append(("node: SWITCH of 1 chain - IF, both cond_switch", switch_of(1, 0), IF_BY_SWITCH))
        out += [(f"bodies held: SWITCH of {k} - of 1, index 0", switch_of(k, 0), switch_of(1, 0))
                for k in ks if k > 1]
    out += [(f"position: SWITCH of {k}, index {k - 1} - index 0", switch_of(k, k - 1), switch_of(k, 0))
            for k in ks if k > 1]
    out += [(f"{switch_of(k, 0)} - IF (cond_one_hot)", switch_of(k, 0), IF_REF) for k in ks]
    if 2 in ks:
        out.append(("decision kernel, SWITCH: cond_one_hot - cond_switch, body 1 of 2", SWITCH_ONE_HOT,
                    switch_of(2, 1)))
    last = MIXED_CHAIN_LAST.format(last=branches - 1)
    out += [(f"mixed bodies: chain at index {branches - 1} - at index 0", last, "SWITCH, index 0"),
            ("mixed SWITCH, chain last - IF node", last, "IF node")]
    if branches in ks:
        out.append((f"other bodies' work: mixed SWITCH - SWITCH of {branches} chains, index 0", "SWITCH, index 0",
                    switch_of(branches, 0)))
    out.append(("the claim: SWITCH, index 0 - IF node", "SWITCH, index 0", "IF node"))
    return out
