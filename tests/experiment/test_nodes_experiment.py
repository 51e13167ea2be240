"""The chain on the node families, built on the fake driver (no GPU): the topologies each lesson makes, what their
graphs keep alive, and the refused device-launch instantiate. Kernels are really compiled by NVRTC."""
from __future__ import annotations

import gc
import weakref

import pytest

from fake_nodes import install


@pytest.fixture
def chain(monkeypatch):
    from cugraphlab import Chain, Device

    fake = install(monkeypatch)
    with Device(0) as dev, Chain(dev, n=512) as ch:
        ch.fake = fake
        yield ch


def _kinds(graph):
    from cugraphlab.graphs.inspect import graph_view

    return [n.label.split(":")[0] for n in graph_view(graph).nodes]


@pytest.mark.parametrize("how", ["explicit", "capture"])
def test_host_node_sits_between_mul_and_sub(chain, how):
    from cugraphlab.experiment.nodes import host_chain_graph
    from cugraphlab.graphs.host import HostCallback

    cb = HostCallback.python()
    graph = host_chain_graph(chain, cb, how)
    tramp = weakref.ref(cb.trampoline)
    cb.close()
    assert _kinds(graph) == ["KERNEL", "KERNEL", "HOST", "KERNEL", "KERNEL"]
    with graph, graph.instantiate() as exe:
        exe.launch(chain.stream)
        assert tramp().calls == 1
    gc.collect()
    assert tramp() is None


def test_other_topologies(chain):
    from cugraphlab.experiment.nodes import (
        EventPair,
        joined_chain_graph,
        nested_chain_graph,
        priority_chain_graph,
        toggle_chain_graph,
        toggle_launches,
    )
    from cugraphlab.graphs.controls import node_priority

    with nested_chain_graph(chain, depth=2) as g:
        assert _kinds(g) == ["GRAPH"]
    g, join = joined_chain_graph(chain)
    with g:
        assert _kinds(g) == ["MEMSET"] * 4 + ["EMPTY"] + ["KERNEL"] * 4
    with EventPair(chain) as pair:
        assert _kinds(pair.graphs[0]) == ["KERNEL", "KERNEL", "EVENT_RECORD"]
        assert _kinds(pair.graphs[1]) == ["WAIT_EVENT", "KERNEL", "KERNEL"]
        pair.run()
    g, nodes, launches = toggle_chain_graph(chain)
    with g:
        assert len(nodes) == 4
        mul = toggle_launches(chain)[1]
        assert mul.args._keep[0] is mul.args._keep[1] is chain.outs[0]  # mul in place: t1 *= s
    g, nodes = priority_chain_graph(chain, -5)
    with g:
        assert [node_priority(n) for n in nodes] == [-5] * 4


def test_timed_graph_has_a_record_node_around_each_kernel(chain):
    from cugraphlab.experiment.nodes import chain_segments, timed_chain_graph

    events = [chain.device.create_event() for _ in range(5)]
    with timed_chain_graph(chain, events) as g:
        assert _kinds(g) == ["EVENT_RECORD", "KERNEL"] * 4 + ["EVENT_RECORD"]
    for e in events:
        e.close()
    seg = chain_segments(chain)
    assert list(seg) == ["0:add", "1:mul", "2:sub", "3:relu"] and all(v == pytest.approx(1.0) for v in seg.values())


def test_refused_instantiate_names_the_host_node(chain):
    from cugraphlab.experiment.nodes import refused_instantiate

    e = refused_instantiate(chain)
    assert e is not None and e.node_label == "HOST"


def test_lessons_refuse_another_chain(monkeypatch):
    from cugraphlab import Chain, Device
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.nodes import EventPair, make_callback

    install(monkeypatch)
    with Device(0) as dev, Chain(dev, ops="add,relu", n=64) as ch:
        with pytest.raises(InvalidArgumentError, match="needs the chain"):
            EventPair(ch)
    with pytest.raises(InvalidArgumentError):
        make_callback("rust")
