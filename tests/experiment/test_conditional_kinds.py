"""ConditionalGraphs as one small object per conditional kind over one shared state (experiment.conditional_state,
_while, _capture, _if), without a GPU: each kind made on its own over a ConditionalState builds what the
ConditionalGraphs method of the same name builds, node for node, and shares its state and executables."""
from __future__ import annotations

import pytest

from switch_fixtures import cond_driver, own_kernels  # noqa: F401


def _graph_and_info(build):
    graph, info = build()
    try:
        return graph.topology().describe(), info
    finally:
        graph.close()


@pytest.mark.parametrize("kind", ["while", "while folded", "until", "if", "captured body", "captured parent"])
def test_each_kind_alone_builds_what_the_gathering_builds(cond_driver, kind):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import (
        CapturedWhile,
        ConditionalGraphs,
        ConditionalState,
        IfFlag,
        ThresholdLoop,
        WhileLoop,
    )

    with Device(0) as dev, Chain(dev, n=2048) as chain:
        with ConditionalState(chain) as state, ConditionalGraphs(chain) as kit:
            assert not isinstance(state, ConditionalGraphs)
            alone, gathered = {
                "while": (lambda: WhileLoop(state).build(6), lambda: kit.build_while(6)),
                "while folded": (lambda: WhileLoop(state).build(6, fold=True), lambda: kit.build_while(6, True)),
                "until": (lambda: ThresholdLoop(state).build(2.5, 50, 8), lambda: kit.build_until(2.5, 50, 8)),
                "if": (lambda: IfFlag(state).build(), lambda: kit.build_if()),
                "captured body": (lambda: CapturedWhile(state).build(6), lambda: kit.build_while_captured(6)),
                "captured parent": (lambda: CapturedWhile(state).build(6, "parent"),
                                    lambda: kit.build_while_captured(6, "parent")),
            }[kind]
            parent_a, info_a = _graph_and_info(alone)
            parent_b, info_b = _graph_and_info(gathered)
            assert parent_a == parent_b and info_a == info_b
            assert info_a["body"].count("KERNEL") >= 4  # the chain's nodes are in every body


def test_the_kinds_share_the_state_and_its_executables(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import conditional_graphs

    with Device(0) as dev, Chain(dev, n=2048) as chain:
        kit = conditional_graphs(chain)
        assert {k.state for k in (kit.while_loop, kit.threshold_loop, kit.while_captured, kit.if_cond)} == {kit}
        exe = kit.while_exec(4)
        assert kit.while_loop.exec(4) is exe and kit.execs.get(("while", 4, False), None) is exe
        assert kit.if_cond.exec() is kit.if_exec()
        assert kit.threshold_loop.exec(1.0) is kit.until_exec(1.0)
        assert kit.while_captured.exec(4) is kit.while_captured_exec(4)
        with pytest.raises(Exception, match="capture into must be one of body, parent"):
            kit.while_captured.build(4, "sideways")
