"""experiment.branches: which body a decision selects, SWITCHes over any subset of bodies and over identical
chains, and one IF node decided by either kernel (tests/helpers/fake_conditional, no GPU)."""
from __future__ import annotations

import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.experiment.branches import (
    condition_value,
    identical_chains,
    selected_body,
)
from switch_fixtures import cond_driver, own_kernels  # noqa: F401

OPS = ("add", "mul", "sub", "relu")


def test_what_each_decision_kernel_writes():
    assert [condition_value("cond_switch", i) for i in (0, 3, 9)] == [0, 3, 9]
    assert [condition_value("cond_one_hot", i) for i in (0, 1, 7)] == [1, 0, 0]
    with pytest.raises(InvalidArgumentError):
        condition_value("cond_sign", 0)


@pytest.mark.parametrize("node, bodies, decide, index, want", [
    ("SWITCH", (0, 1, 2, 3), "cond_switch", 0, 0),
    ("SWITCH", (0, 1, 2, 3), "cond_switch", 3, 3),
    ("SWITCH", (0, 1, 2, 3), "cond_switch", 4, None),
    ("SWITCH", (1, 2, 3, 0), "cond_switch", 3, 0),  # the chain moved last
    ("SWITCH", (1, 2, 3, 0), "cond_switch", 0, 1),
    ("SWITCH", (0,), "cond_switch", 1, None),
    ("SWITCH", (0, 1), "cond_one_hot", 0, 1),  # cond_one_hot writes 1 for index 0
    ("SWITCH", (0, 1), "cond_one_hot", 5, 0),
    ("IF", (0,), "cond_one_hot", 0, 0),
    ("IF", (0,), "cond_one_hot", 1, None),
    ("IF", (2,), "cond_switch", 0, None),
    ("IF", (2,), "cond_switch", 1, 2),
])
def test_selected_body(node, bodies, decide, index, want):
    assert selected_body(node, bodies, decide, index) == want


def test_selected_body_refuses_impossible_nodes():
    with pytest.raises(InvalidArgumentError):
        selected_body("IF", (0, 1), "cond_switch", 1)
    with pytest.raises(InvalidArgumentError):
        selected_body("WHILE", (0,), "cond_switch", 1)


def test_identical_chains_are_the_chain_under_other_names():
    vs = identical_chains(OPS, 3)
    assert [v.name for v in vs] == ["chain #0", "chain #1", "chain #2"]
    assert all(v.ops == OPS and not v.fused for v in vs)
    with pytest.raises(InvalidArgumentError):
        identical_chains(OPS, 9)


def _kernels(fake, graph) -> list[str]:
    """The kernel names of a graph's kernel nodes, in order (its conditional node has no kernel)."""
    nodes = fake.graphs[int(getattr(graph, "handle", graph))]["nodes"]
    return [fake.func_names[fake.node_func[n]] for n in nodes if n in fake.node_func]


def _conditional(fake, graph):
    (c,) = [c for n, c in fake.conditional.items() if fake.node_graph[n] == graph.handle]
    return c


def test_switch_over_identical_chains_and_subsets(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, OPS, 1024) as chain, \
            BranchGraphs(chain, variants=identical_chains(OPS, 8)) as same, BranchGraphs(chain, 4) as mixed:
        assert same.count == 8 and len({int(b.result.ptr) for b in same.bodies}) == 8  # each body its own output
        for k in (1, 3, 8):
            graph, info = same.build_switch(tuple(range(k)))
            with graph:
                c = _conditional(cond_driver, graph)
                assert (c["type"], c["size"]) == ("SWITCH", k)
                assert [_kernels(cond_driver, b) for b in c["bodies"]] == [list(OPS)] * k
                assert _kernels(cond_driver, graph)[0] == "cond_switch" and len(info["body_graphs"]) == k
        graph, info = mixed.build_switch((1, 2, 3, 0))
        with graph:
            bodies = [_kernels(cond_driver, b) for b in _conditional(cond_driver, graph)["bodies"]]
            assert bodies == [["add", "mul", "sub"], ["add", "mul", "relu"], ["fused"], list(OPS)]
            assert info["bodies"][3].startswith("body 3 (variant 0: add -> mul -> sub -> relu)")
        graph, info = same.build_switch((0, 1), decide="cond_one_hot")
        with graph:
            assert _kernels(cond_driver, graph)[0] == "cond_one_hot" and "cond_one_hot" in info["decide"]
        for decide in ("cond_switch", "cond_one_hot"):
            graph, info = same.build_if(0, decide)
            with graph:
                c = _conditional(cond_driver, graph)
                assert (c["type"], c["size"]) == ("IF", 1) and _kernels(cond_driver, graph)[0] == decide
                assert _kernels(cond_driver, c["bodies"][0]) == list(OPS)
        made = len(cond_driver.graphs)
        for bad in ((), (8,), (True,), (0, -1)):
            with pytest.raises(InvalidArgumentError):
                same.build_switch(bad)
        with pytest.raises(InvalidArgumentError):
            same.build_switch((0,), decide="cond_sign")
        with pytest.raises(InvalidArgumentError):
            same.build_if(8)
        assert len(cond_driver.graphs) == made  # refused before any graph was made
        # the executables are cached by (bodies, decide)
        assert same.exec_of("switch_over", ((0, 1), "cond_switch")) is same.exec_of("switch_over",
                                                                                   ((0, 1), "cond_switch"))
        assert same.exec_of("if_by", (0, "cond_switch")) is not same.exec_of("if_by", (0, "cond_one_hot"))
    assert cond_driver.refused == []


def test_variants_must_be_chain_variants(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, OPS, 1024) as chain:
        with pytest.raises(InvalidArgumentError):
            BranchGraphs(chain, variants=[])
        with pytest.raises(InvalidArgumentError):
            BranchGraphs(chain, variants=["chain"])
