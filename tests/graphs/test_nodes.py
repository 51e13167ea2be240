"""The node families without a GPU: host nodes (their trampolines really called through the function pointer by the
fake driver at each launch, and kept alive by their owners), event, child and empty nodes, clones, node controls,
priorities and cuGraphInstantiateWithParams' named refusal. Driver: tests/helpers/fake_nodes.FakeNodesDriver."""
from __future__ import annotations

import gc
import weakref

import pytest

from fake_nodes import install


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


@pytest.fixture
def dev(fake):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def _assert_all_released_once(fake, keep=("context",)):
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0 and k not in keep]
    assert live == [], f"handles never released: {live}"
    assert fake.released_twice() == []


# --- host nodes ---------------------------------------------------------------------------------------------------
def test_python_trampoline_outlives_the_dropped_callback_and_runs_at_each_launch(fake, dev):
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    seen = []
    cb = HostCallback.python(lambda: seen.append(1))
    graph = Graph(dev)
    add_host_node(graph, cb, [])
    tramp = weakref.ref(cb.trampoline)
    del cb  # the user's reference goes: the graph's must keep the trampoline
    gc.collect()
    assert tramp() is not None
    exe = graph.instantiate()
    graph.close()  # the exec inherited the reference
    gc.collect()
    assert tramp() is not None
    stream = dev.create_stream()
    for _ in range(3):
        exe.launch(stream)
    assert seen == [1, 1, 1] and tramp().calls == 3 and fake.host_calls == 3
    exe.close()
    gc.collect()
    assert tramp() is None  # freed once no owner holds it
    stream.close()
    _assert_all_released_once(fake)


def test_forgotten_graph_and_exec_with_host_nodes_are_collected_and_released_once(fake, dev):
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    refs = []

    def make():
        cb = HostCallback.python()
        g = Graph(dev)
        add_host_node(g, cb)
        exe = g.instantiate()
        refs.append(weakref.ref(cb.trampoline))
        return g, exe

    g, exe = make()
    wg, we = weakref.ref(g), weakref.ref(exe)
    del g, exe
    gc.collect()
    assert wg() is None and we() is None and refs[0]() is None
    _assert_all_released_once(fake)


def test_python_callback_errors_are_kept_not_raised_into_the_driver(fake, dev):
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    def boom():
        raise RuntimeError("in the callback")

    with HostCallback.python(boom) as cb, Graph(dev) as g:
        add_host_node(g, cb)
        with g.instantiate() as exe, dev.create_stream() as s:
            exe.launch(s)
        assert cb.calls == 1 and isinstance(cb.errors[0], RuntimeError)


def test_c_callback_counts_without_python(fake, dev, monkeypatch):
    import shutil

    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here")
    from cugraphlab.core.native import load_c_library as real
    from cugraphlab.graphs import host
    from cugraphlab.graphs.exec import Graph

    asked = []

    def load_c_library(source, name):  # core.native's compiler, watched
        asked.append((source, name))
        return real(source, name)

    monkeypatch.setattr(host, "load_c_library", load_c_library)
    cb = host.HostCallback.c_counter()
    assert asked == [(host.C_COUNTER_SOURCE, host.C_COUNTER_NAME)] and cb.kind == "c"
    g = Graph(dev)
    host.add_host_node(g, cb)
    tramp = weakref.ref(cb.trampoline)
    cb.close()
    with g, g.instantiate() as exe, dev.create_stream() as s:
        for _ in range(5):
            exe.launch(s)
        assert tramp().calls == 5
    gc.collect()
    assert tramp() is None


def test_captured_host_func_goes_to_libcuda_and_the_capture_graph_keeps_it(fake, dev):
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.graphs.capture import capture
    from cugraphlab.graphs.host import HostCallback, launch_host_func
    from cugraphlab.graphs.inspect import node_kind

    s = dev.create_stream()
    cb = HostCallback.python()
    with pytest.raises(InvalidArgumentError, match="owner"):
        with capture(s):
            launch_host_func(s, cb)
    with capture(s) as cap:
        launch_host_func(s, cb, owner=cap)
    assert [node_kind(n) for n in cap.graph.nodes()] == ["HOST"]
    assert fake.bindings_host_func_calls == 0  # libcuda's own, not the bindings' one-shot wrapper
    tramp = weakref.ref(cb.trampoline)
    cb.close()
    with cap.graph as g, g.instantiate() as exe:
        exe.launch(s)
        exe.launch(s)
        assert tramp().calls == 2
    launch_host_func(s, HostCallback.python(), owner=None)  # outside a capture: called once, right away
    assert fake.host_calls == 3
    s.close()


def test_launch_host_func_is_traced_and_checked(fake, dev, monkeypatch):
    from cugraphlab.core import _calls, _door
    from cugraphlab.core.errors import CudaError
    from cugraphlab.graphs.host import HostCallback, launch_host_func

    s = dev.create_stream()
    with HostCallback.python() as cb:
        with _calls.tracing(None) as tr:
            launch_host_func(s, cb)
        assert [e.api for e in tr.entries][-1] == "cuLaunchHostFunc"

        class Refusing:
            def cuLaunchHostFunc(self, *a):
                return 201  # CUDA_ERROR_INVALID_CONTEXT

        monkeypatch.setattr(_door, "_libcuda", Refusing())
        with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_CONTEXT"):
            launch_host_func(s, cb)
    s.close()


def test_host_node_needs_a_graph_that_can_own_the_callback(fake, dev):
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    with HostCallback.python() as cb, Graph(dev) as g:
        with pytest.raises(InvalidArgumentError, match="owner"):
            add_host_node(g.handle, cb)
    with pytest.raises(InvalidArgumentError):
        HostCallback.python(42)


# --- events, child graphs, clones, empty nodes --------------------------------------------------------------------
def test_event_nodes_keep_their_events_and_show_in_the_view(fake, dev):
    from cugraphlab.graphs.events import add_event_record_node, add_event_wait_node, event_of_node
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.inspect import graph_view, render_text

    ev = dev.create_event(timing=False)
    with Graph(dev) as g:
        rec = add_event_record_node(g, ev)
        wait = add_event_wait_node(g, ev, [rec])
        assert ev in g.kept and int(event_of_node(rec)) == int(ev.handle) == int(event_of_node(wait))
        view = graph_view(g)
        assert [n.label for n in view.nodes] == ["EVENT_RECORD", "WAIT_EVENT"]
        assert "records event" in view.nodes[0].detail and "waits for event" in view.nodes[1].detail
        assert "[0] event_record" in render_text(view)
    ev.close()


def test_child_graph_is_copied_and_clone_is_owned_and_found(fake, dev):
    from cugraphlab.graphs.child import add_child_graph_node, child_graph_of, clone_graph, find_in_clone
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node
    from cugraphlab.graphs.inspect import graph_nodes, graph_view
    from cugraphlab.graphs.join import add_empty_node

    cb = HostCallback.python()
    child = Graph(dev)
    a = add_empty_node(child)
    add_host_node(child, cb, [a])
    parent = Graph(dev)
    node = add_child_graph_node(parent, child)
    assert len(graph_nodes(child_graph_of(node))) == 2
    assert cb.trampoline in parent.kept  # the parent keeps what the child keeps
    view = graph_view(parent)
    assert view.nodes[0].label == "GRAPH" and "child graph of 2 nodes: empty, host" in view.nodes[0].detail
    clone = clone_graph(child)
    twin = find_in_clone(a, clone)
    assert int(twin) != int(a) and cb.trampoline in clone.kept
    child.close()  # the clone and the parent are independent of it
    with parent.instantiate() as exe, dev.create_stream() as s:
        exe.launch(s)
    assert cb.calls == 1
    for g in (clone, parent):
        g.close()
    cb.close()
    _assert_all_released_once(fake)


def test_empty_node_joins_many_into_one(fake, dev):
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.inspect import edge_pairs, graph_view
    from cugraphlab.graphs.join import add_empty_node

    with Graph(dev) as g:
        roots = [add_empty_node(g) for _ in range(4)]
        join = add_empty_node(g, roots)
        after = [add_empty_node(g, [join]) for _ in range(3)]
        assert len(edge_pairs(g)) == 4 + 3 and after
        assert graph_view(g).nodes[0].detail == "join point (no work)"


# --- controls and instantiation -----------------------------------------------------------------------------------
def test_enable_disable_and_host_node_skipped_while_disabled(fake, dev):
    from cugraphlab.graphs.controls import is_enabled, set_enabled
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    with HostCallback.python() as cb, Graph(dev) as g:
        node = add_host_node(g, cb)
        with g.instantiate() as exe, dev.create_stream() as s:
            assert is_enabled(exe, node)
            set_enabled(exe, node, False)
            assert not is_enabled(exe, node)
            exe.launch(s)
            assert cb.calls == 0
            set_enabled(exe, node, True)
            exe.launch(s)
            assert cb.calls == 1


def test_priorities_and_instantiate_with_params_upload(fake, dev):
    from cugraphlab.graphs.controls import (
        instantiate_flags,
        instantiate_with_params,
        node_priority,
        priority_range,
        set_node_priority,
    )
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.join import add_empty_node

    assert priority_range() == (0, -5)
    with Graph(dev) as g, dev.create_stream() as s:
        node = fake._add(g.handle, [], "KERNEL")
        add_empty_node(g, [node])
        set_node_priority(node, -5)
        assert node_priority(node) == -5
        flags = instantiate_flags("use_node_priority")
        with instantiate_with_params(g, flags, upload_stream=s):
            pass
        upload = instantiate_flags("upload")
        assert fake.last_instantiate == {"flags": flags | upload, "upload_stream": int(s.handle)}
    with pytest.raises(Exception, match="unknown instantiate flag"):
        instantiate_flags("fast")
    _assert_all_released_once(fake)


def test_refused_instantiate_names_the_node_and_the_result(fake, dev):
    from cugraphlab.core.errors import CudaError
    from cugraphlab.graphs.controls import InstantiateError, instantiate_flags, instantiate_with_params
    from cugraphlab.graphs.exec import Graph
    from cugraphlab.graphs.host import HostCallback, add_host_node

    with HostCallback.python() as cb, Graph(dev) as g:
        first = fake._add(g.handle, [], "KERNEL")  # device launch allows kernel nodes, not host (nor empty) ones
        host = add_host_node(g, cb, [first])
        with pytest.raises(InstantiateError) as info:
            instantiate_with_params(g, instantiate_flags("device_launch"))
    e = info.value
    assert isinstance(e, CudaError) and e.call == "cuGraphInstantiateWithParams"
    assert e.result == "CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED" and e.node_label == "HOST"
    assert int(e.node) == int(host) and e.name == "CUDA_ERROR_INVALID_VALUE"
    assert "at node HOST" in str(e) and "NODE_OPERATION_NOT_SUPPORTED" in str(e)
    _assert_all_released_once(fake)


def test_priority_attribute_is_the_same_constant_in_both_bindings():
    from cugraphlab.core._calls import host_fn, kernel_node_priority_attr

    assert int(kernel_node_priority_attr()) == 8
    assert int(host_fn(0x1234)) == 0x1234
