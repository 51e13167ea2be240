"""A WHILE body filled by stream capture, and a conditional node added during a capture, without a GPU: the driver
calls in order (the tracing door), the topology against the built graph, the 12.x call forms, and ownership (bodies
never destroyed by us; every handle released once)."""
from __future__ import annotations

import gc
import weakref

import pytest

from cugraphlab.core._calls import tracing
from switch_fixtures import cond_driver, install, own_kernels  # noqa: F401

GRAPH_CALLS = {"cuGraphCreate", "cuGraphAddMemsetNode", "cuGraphConditionalHandleCreate", "cuGraphAddNode",
               "cuGraphAddNode_v2", "cuGraphAddKernelNode", "cuStreamBeginCapture", "cuStreamBeginCaptureToGraph",
               "cuStreamEndCapture", "cuStreamGetCaptureInfo", "cuStreamUpdateCaptureDependencies",
               "cuLaunchKernel", "cuMemsetD32Async", "cuGraphDestroy", "cuStreamCreate"}
CHAIN = ["cuLaunchKernel"] * 5  # add, mul, sub, relu, then the counting decision


def _plain(api: str) -> str:
    base, _, v = api.rpartition("_v")
    return base if base and v.isdigit() else api


def _calls_of(build):
    """The graph-related driver calls ``build(loops)`` makes, in order (objects made inside the trace)."""
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import ConditionalGraphs

    with tracing(None) as t:
        with Device(0) as dev, Chain(dev, n=2048) as chain, ConditionalGraphs(chain) as loops:
            first = len(t.entries)
            graph, info = build(loops)
            # cuda-bindings 12 spells the 13 forms cuXxx_v2/_v3: the same call, named as 13 names it
            calls = [_plain(e.api) for e in t.entries[first:] if _plain(e.api) in GRAPH_CALLS]
            graph.close()
    return calls, info


def test_body_captured_into_the_node_made_body(cond_driver):
    calls, info = _calls_of(lambda loops: loops.build_while_captured(3, "body"))
    assert calls == ["cuGraphCreate", "cuGraphAddMemsetNode", "cuGraphConditionalHandleCreate", "cuGraphAddNode",
                     "cuStreamBeginCaptureToGraph", *CHAIN, "cuStreamEndCapture"]
    assert info["body"].startswith("5 nodes, 4 edges") and "KERNEL:conditional" in info["body"]
    assert info["captured"] == "body"


def test_node_added_during_a_capture_of_the_parent(cond_driver):
    calls, info = _calls_of(lambda loops: loops.build_while_captured(3, "parent"))
    assert calls == ["cuStreamCreate",  # the second stream, made before any capture
                     "cuStreamBeginCapture", "cuMemsetD32Async",  # the reset, captured as a memset node
                     "cuStreamGetCaptureInfo", "cuGraphConditionalHandleCreate",  # a handle of the graph being built
                     "cuStreamGetCaptureInfo", "cuGraphAddNode", "cuStreamUpdateCaptureDependencies",
                     "cuStreamBeginCaptureToGraph", *CHAIN, "cuStreamEndCapture",  # the body, on the second stream
                     "cuStreamEndCapture"]
    assert info["parent"].splitlines()[1:] == ["  [0] MEMSET", "  [1] CONDITIONAL  <- 0"]


@pytest.mark.parametrize("into", ["body", "parent"])
def test_captured_while_has_the_built_topology(cond_driver, into):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import conditional_graphs

    with Device(0) as dev, Chain(dev, n=1024) as chain:
        loops = conditional_graphs(chain)
        same, text = loops.same_as_built(7, into)
        assert same, text
        assert text.startswith("parent: same topology: 2 nodes, 1 edges; body: same topology: 5 nodes, 4 edges")
        # the comparison can fail: a body captured without one of the chain's launches differs
        real = loops.while_captured._capture_launches
        loops.while_captured._capture_launches = lambda *a: [x for i, x in enumerate(real(*a)) if i != 2]  # drop `sub`
        try:
            same, text = loops.same_as_built(7, into)
        finally:
            loops.while_captured._capture_launches = real
        assert not same and "body: different topology" in text and "parent: same topology" in text


def test_captured_bodies_with_12x_bindings(monkeypatch, own_kernels):
    fake = install(monkeypatch, cuda_version=12090)
    forms = []
    for name in ("cuStreamGetCaptureInfo", "cuStreamUpdateCaptureDependencies"):
        orig = getattr(fake, name)
        setattr(fake, name, lambda *a, _o=orig, _n=name: (forms.append((_n, len(a))), _o(*a))[1])
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.conditional import conditional_graphs

    with Device(0) as dev, Chain(dev, n=512) as chain:
        same, text = conditional_graphs(chain).same_as_built(2, "parent")
        assert same, text
    # 12.x: cuStreamGetCaptureInfo(stream) -> 5 values; cuStreamUpdateCaptureDependencies(stream, deps, n, flags)
    assert ("cuStreamUpdateCaptureDependencies", 4) in forms
    assert all(n == 1 for name, n in forms if name == "cuStreamGetCaptureInfo")


def test_capture_into_leaves_the_body_alone_on_failure(cond_driver):
    from cugraphlab import Device
    from cugraphlab.graphs import Graph
    from cugraphlab.graphs.capture_into import capture_into
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle

    with Device(0) as dev, dev.create_stream() as s, Graph(dev) as g:
        h = create_handle(g.handle, dev.context, 1)
        _node, body = add_conditional_node(g.handle, [], "WHILE", h, dev.context)
        with pytest.raises(RuntimeError, match="boom"):
            with capture_into(s, body):
                raise RuntimeError("boom")
        assert int(s.handle) not in cond_driver.captures  # the capture was ended
        assert cond_driver.released[int(body)] == 0  # and the body was not destroyed: the node owns it
    assert cond_driver.released[int(body)] == 1 and cond_driver.refused == []


def test_capturing_graph_refuses_a_stream_that_is_not_capturing(cond_driver):
    from cugraphlab import Device
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.graphs.capture_into import capturing_graph

    with Device(0) as dev, dev.create_stream() as s:
        with pytest.raises(InvalidArgumentError, match="not capturing"):
            capturing_graph(s)


# --- lifetime: forgotten objects collected, every handle released once, bodies only by their parent -------------
def _assert_all_released_once(fake, keep=("context",)):
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0 and k not in keep]
    assert live == [], f"handles never released: {live}"
    assert fake.released_twice() == []
    assert fake.refused == []


@pytest.mark.parametrize("what", ["branches", "captured"])
def test_forgotten_conditional_kits_are_collected(cond_driver, what):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import branch_graphs
    from cugraphlab.experiment.conditional import conditional_graphs

    dev = Device(0)

    def make():
        chain = Chain(dev, n=512)
        if what == "branches":
            kit = branch_graphs(chain, 4)  # kept by the chain, which it refers to: a cycle
            for key in ("if_else", "switch", "if_sequence", "if", "sizes_switch", "plain"):
                kit.exec_of(key)
            for k in range(4):
                kit.exec_of("size", k)
            graph, _ = kit.build_switch()  # a Graph the caller forgets too
            graph.keep = chain
            return graph
        loops = conditional_graphs(chain)
        for into in ("body", "parent"):
            loops.while_captured_exec(5, into)
        graph, _ = loops.build_while_captured(5, "parent")
        graph.keep = chain
        return graph

    obj = make()
    bodies_before = [b for b, k in cond_driver.made.items() if k == "body graph"]
    assert bodies_before  # conditional nodes were made
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    assert ref() is None
    gc.collect()
    _assert_all_released_once(cond_driver)
    bodies = [b for b, k in cond_driver.made.items() if k == "body graph"]
    assert all(cond_driver.released[b] == 1 for b in bodies)  # freed with their parents, once
    dev.close()
    _assert_all_released_once(cond_driver, keep=())


def test_closing_twice_and_closing_the_chain_first(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import branch_graphs

    with Device(0) as dev:
        chain = Chain(dev, n=256)
        kit = branch_graphs(chain, 3)
        kit.exec_of("switch")
        assert branch_graphs(chain, 3) is kit and branch_graphs(chain, 2) is not kit
        chain.close()  # closes its dependents first (the kits), before the buffers their executables read
        assert kit.closed
        kit.close()
        chain.close()
    _assert_all_released_once(cond_driver, keep=())
