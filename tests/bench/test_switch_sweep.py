"""bench.switch's sweep, contrasts and holding costs end to end on a fake driver that charges device time per node
launched and device memory per node uploaded (tests/helpers/fake_switch_costs): the rows pair by round, each
contrast measures what it names, and a claim is shown only where the difference shows it."""
from __future__ import annotations

import pytest

from cugraphlab.bench.graphs.switch_sweep import (
    IF_BY_SWITCH,
    IF_REF,
    SWITCH_ONE_HOT,
    sweep_contrasts,
    sweep_ks,
    switch_of,
)
from cugraphlab.core.errors import InvalidArgumentError
from fake_driver import patch_driver
from switch_fixtures import own_kernels  # noqa: F401

US_PER_NODE = 0.5


@pytest.fixture
def cost_driver(monkeypatch, own_kernels):
    from fake_switch_costs import FakeCostDriver

    fake = FakeCostDriver(us_per_node=US_PER_NODE)
    patch_driver(monkeypatch, fake)
    return fake


def test_sweep_counts_and_contrast_names():
    assert sweep_ks([4, 1, 2, 2]) == (1, 2, 4)
    for bad in ([0], [9], [True]):
        with pytest.raises(InvalidArgumentError):
            sweep_ks(bad)
    labels = [c[0] for c in sweep_contrasts((1, 2, 4), 4)]
    assert "node: SWITCH of 1 chain - IF, both cond_switch" in labels
    assert "position: SWITCH of 4, index 3 - index 0" in labels
    assert "bodies held: SWITCH of 4 - of 1, index 0" in labels
    assert labels[-1] == "the claim: SWITCH, index 0 - IF node"
    # without K = 1 there is no node contrast, and no count contrast against one body
    assert not any(lab.startswith(("node:", "bodies held")) for lab, _a, _b in sweep_contrasts((2, 4), 4))


def _measure(dev, **kw):
    from cugraphlab.bench.graphs.switch import measure_switch

    args = dict(size=4096, branches=4, iters=3, repeats=7, holding_repeats=6, holding_batch=64, sweep=(1, 2, 4),
                seed=1)
    args.update(kw)
    return measure_switch(dev, **args)


def test_sweep_rows_contrasts_and_goals(cost_driver):
    from cugraphlab import Device

    with Device(0) as dev:
        r = _measure(dev)
    names = [row.name for row in r.rows if row.group == "sweep"]
    assert names == [IF_REF, IF_BY_SWITCH, switch_of(1, 0), switch_of(2, 0), switch_of(2, 1), switch_of(4, 0),
                     switch_of(4, 3), SWITCH_ONE_HOT, "SWITCH, chain last, index 3"]
    every = {row.name for row in r.rows}
    assert all(a in every and b in every for _lab, a, b in r.config["contrasts"])
    assert all(len(r.samples[f"{n} | device"]["values"]) == 7 for n in every)
    by = {c["label"]: c for c in r.contrasts()}
    # the fake's cost is nodes x 0.5 us: the decision kernel and the node kind cost nothing, a body of 4 kernels 2 us
    assert by["decision kernel, IF node: cond_switch - cond_one_hot"]["median"] == 0
    assert by["node: SWITCH of 1 chain - IF, both cond_switch"]["direction"] == "same"
    held = by["bodies held: SWITCH of 4 - of 1, index 0"]
    assert held["median"] == pytest.approx(3 * 4 * US_PER_NODE) and held["direction"] == "higher"
    assert held["above"] == 7 and held["p_sign"] < 0.05
    assert by["position: SWITCH of 4, index 3 - index 0"]["median"] == 0
    # the mixed SWITCH holds 4 + 3 + 3 + 1 kernels: 11 body nodes against the IF node's 4
    goal = r.claims()["switch_vs_one_if"]
    assert goal["difference"]["median"] == pytest.approx((11 - 4) * US_PER_NODE) and goal["verdict"] == "opposite shown"
    assert by["the claim: SWITCH, index 0 - IF node"]["median"] == goal["difference"]["median"]


def test_checks_cover_every_index_of_every_sweep_switch(cost_driver):
    from cugraphlab import Device

    with Device(0) as dev:
        r = _measure(dev, repeats=1, holding_repeats=1, holding_batch=1)
    kinds = [c["kind"] for c in r.checks]
    assert kinds.count("SWITCH of 1 chains") == 2 and kinds.count("SWITCH of 4 chains") == 5
    assert kinds.count("IF (cond_switch)") == 2 and kinds.count("SWITCH, chain last") == 5
    want = [c["expected"] for c in r.checks if c["kind"] == "SWITCH, chain last"]
    assert want == [1, 2, 3, 0, None]


def test_no_sweep_makes_no_sweep_rows(cost_driver):
    from cugraphlab import Device

    with Device(0) as dev:
        r = _measure(dev, sweep=(), repeats=2, holding_repeats=1, holding_batch=1)
    assert not [row for row in r.rows if row.group == "sweep"] and r.contrasts() == []
    assert r.config["sweep"] == [] and "switch_vs_one_if" in r.claims()


def _holding(fake, **kw):
    from cugraphlab import Chain, Device
    from cugraphlab.bench.graphs.switch import _holding_costs
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, n=4096) as chain, BranchGraphs(chain, 4) as kit:
        before = fake.instantiated
        costs = _holding_costs(kit, dev, **kw)
        return costs, fake.instantiated - before


def test_holding_costs_hold_many_copies_and_free_them_all(cost_driver):
    from cugraphlab.bench.graphs.switch import INSTANTIATE_COPIES, MEMORY_ROUNDS

    (s, g), made = _holding(cost_driver, repeats=6, batch=64)
    assert made == (1 + 4) * (1 + 6 * INSTANTIATE_COPIES + MEMORY_ROUNDS * 64)
    assert cost_driver.in_use == 0 and cost_driver.uploaded == {}  # every copy destroyed
    assert len(s.instantiate_samples) == len(g.instantiate_samples) == 6
    assert len(s.memory_bytes) == len(g.memory_bytes) == MEMORY_ROUNDS and s.batch == g.batch == 64
    # 18 nodes (cond_switch, SWITCH, 4 x 4 kernels) and 16 (4 graphs of 4) at 1 KiB each, held all at once: the
    # pages drawn over all rounds are the total, within one page
    total = MEMORY_ROUNDS * 64 * (18 + 16) * 1024
    assert abs(sum(s.memory_bytes) + sum(g.memory_bytes) - total) <= cost_driver.page
    assert s.memory_seen and g.memory_seen


def test_memory_below_a_page_is_not_measurable(monkeypatch, own_kernels):
    from fake_switch_costs import FakeCostDriver

    fake = FakeCostDriver(bytes_per_node=8)  # 8 rounds x 64 copies x 34 nodes x 8 B: far below one 2 MiB page
    patch_driver(monkeypatch, fake)
    from cugraphlab import Device
    from cugraphlab.report.switch import render_switch

    with Device(0) as dev:
        r = _measure(dev, repeats=2, holding_repeats=2, holding_batch=64, sweep=())
    m = r.claims()["sizes_memory"]
    assert (m["verdict"], m["shown"], m["measurable"]) == ("not measurable", False, False)
    assert "below 32 KiB per set" in m["reason"]
    assert "not measurable by cuMemGetInfo" in render_switch(r)


def test_memory_rounds_stop_where_the_driver_refuses_more_executables(monkeypatch, own_kernels):
    from fake_switch_costs import FakeCostDriver

    fake = FakeCostDriver(max_execs=3 * 8 * 5 + 2)  # three rounds of 8 copies of both sets, then a refusal
    patch_driver(monkeypatch, fake)
    (s, g), _made = _holding(fake, repeats=6, batch=8)
    assert len(s.memory_bytes) == len(g.memory_bytes) == 3
    assert s.note.startswith("memory rounds stopped after 3 of 8: ") and "CUDA_ERROR_OUT_OF_MEMORY" in s.note
    assert fake.alive == set() and fake.in_use == 0  # the refused round's copies were freed too
