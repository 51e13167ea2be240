"""Graph memory nodes without a GPU (tests/helpers/fake_memnodes.FakeMemDriver): node parameters, the typed errors of
the unfreed relaunch and the second exec, outstanding allocations freed once at close, footprint reads, the view."""
from __future__ import annotations

import gc
import weakref

import pytest

import fake_memnodes


@pytest.fixture
def fake(monkeypatch):
    return fake_memnodes.install(monkeypatch)


@pytest.fixture
def dev(fake):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def test_alloc_node_params_ask_for_pinned_device_memory_on_the_device(dev):
    from cuda.bindings import driver

    from cugraphlab.graphs.memory import alloc_node_params

    p = alloc_node_params(dev, 4096)
    assert p.poolProps.allocType == driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    assert p.poolProps.location.type == driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    assert p.poolProps.location.id == dev.ordinal and p.bytesize == 4096 and int(p.dptr) == 0


def test_alloc_returns_the_address_the_driver_wrote_and_free_pairs_it(dev, fake):
    from cugraphlab.graphs.memory import MemoryGraph

    with MemoryGraph(dev) as g:
        a = g.alloc(1 << 12)
        assert a.dptr == fake.nodes[int(a.node)]["dptr"] and a.dptr != 0
        assert g.unfreed() == [a]
        f = g.free(a, [a.node])
        assert a.free_node is f and g.unfreed() == [] and fake.nodes[int(f)]["dptr"] == a.dptr
        from cugraphlab.core.errors import InvalidArgumentError

        with pytest.raises(InvalidArgumentError, match="freed in this graph already"):
            g.free(a)


def test_relaunch_with_a_live_allocation_is_a_typed_error_with_a_hint(dev, fake):
    from cugraphlab.graphs.memory import MemoryGraph, UnfreedAllocationError

    s = dev.create_stream()
    with MemoryGraph(dev) as g:
        a = g.alloc(4096)
        with g.instantiate() as exe:
            exe.launch(s)
            assert exe.outstanding == {a.dptr}
            with pytest.raises(UnfreedAllocationError) as e:
                exe.launch(s)
            assert e.value.name == "CUDA_ERROR_INVALID_VALUE" and "auto_free" in str(e.value)
            assert e.value.call == "cuGraphLaunch"
            assert exe.free_outstanding(s) == 1 and exe.outstanding == set()
            exe.launch(s)  # allowed again
        assert a.dptr not in fake.graph_allocs  # close freed what the last launch left
        with g.instantiate(auto_free=True) as auto:
            auto.launch(s)
            auto.launch(s)  # the driver frees the last launch's allocation itself
        assert fake.graph_allocs == {}
    s.close()


def test_a_second_exec_is_refused_while_the_first_lives(dev):
    from cugraphlab.graphs.memory import MemoryGraph, SecondExecError

    with MemoryGraph(dev) as g:
        a = g.alloc(4096)
        g.free(a, [a.node])
        first = g.instantiate()
        with pytest.raises(SecondExecError, match="only one executable graph"):
            g.instantiate()
        first.close()
        g.instantiate().close()  # fine once the first is gone


def test_a_plain_launch_failure_is_not_called_an_unfreed_allocation(dev, fake):
    from cugraphlab.core.errors import CudaError
    from cugraphlab.graphs.memory import MemoryGraph, UnfreedAllocationError

    s = dev.create_stream()
    with MemoryGraph(dev) as g:
        a = g.alloc(4096)
        g.free(a, [a.node])
        with g.instantiate() as exe:
            exe.fn = lambda h, st: (fake_memnodes.INVALID_VALUE,)
            with pytest.raises(CudaError) as e:
                exe.launch(s)
            assert not isinstance(e.value, UnfreedAllocationError)
    s.close()


def test_forgotten_exec_with_a_live_allocation_frees_it_once_and_is_collected(dev, fake):
    from cugraphlab.graphs.memory import MemoryGraph

    s = dev.create_stream()
    g = MemoryGraph(dev)
    g.alloc(8192)
    exe = g.instantiate()
    exe.launch(s)
    assert fake.graph_allocs
    ref = weakref.ref(exe)
    del exe
    gc.collect()
    assert ref() is None and fake.graph_allocs == {}
    g.close()
    s.close()
    assert [k for h, k in fake.made.items() if fake.released[h] == 0 and k != "context"] == []
    assert fake.released_twice() == []


def test_exec_closed_before_its_graph_and_graph_before_exec_both_release_once(dev, fake):
    from cugraphlab.graphs.memory import MemoryGraph

    for exec_first in (True, False):
        g = MemoryGraph(dev)
        a = g.alloc(4096)
        g.free(a, [a.node])
        exe = g.instantiate()
        (exe if exec_first else g).close()
        (g if exec_first else exe).close()
    assert fake.released_twice() == []
    assert fake.live("graph") == [] and fake.live("graph exec") == []


def test_captured_allocations_are_found_and_paired_with_their_frees(dev, fake):
    from cugraphlab.graphs.capture import capture
    from cugraphlab.graphs.memory import MemoryGraph, alloc_async, free_async

    s = dev.create_stream()
    with capture(s, graph_class=MemoryGraph) as cap:
        p1 = alloc_async(s, 4096)
        p2 = alloc_async(s, 4096)
        free_async(s, p1)
        p3 = alloc_async(s, 4096)  # takes p1's address in the fake, as the driver may
        free_async(s, p2)
        free_async(s, p3)
        p4 = alloc_async(s, 1024)  # never freed
    g = cap.graph
    assert isinstance(g, MemoryGraph) and p3 == p1
    assert [a.dptr for a in g.allocations] == [p1, p2, p3, p4]
    assert [a.freed_in_graph for a in g.allocations] == [True, True, True, False]
    assert [a.dptr for a in g.unfreed()] == [p4] and g.allocated_bytes == 3 * 4096 + 1024
    g.close()
    s.close()


def test_footprint_reads_the_four_attributes_and_resets_with_a_cuuint64(dev, fake):
    from cugraphlab.graphs.memory import (
        FOOTPRINT_FIELDS,
        MemoryGraph,
        graph_mem_footprint,
        reset_graph_mem_high,
        trim_graph_mem,
    )

    s = dev.create_stream()
    with MemoryGraph(dev) as g:
        a = g.alloc(1 << 20)
        g.free(a, [a.node])
        with g.instantiate() as exe:
            assert graph_mem_footprint(dev).used_current == 0
            exe.launch(s)
            fp = graph_mem_footprint(dev)
            assert fp.used_current == fp.used_high == fp.reserved_current == 1 << 20
            assert set(fp.to_dict()) == set(FOOTPRINT_FIELDS) and "1.0 MiB" in str(fp)
        reset_graph_mem_high(dev)  # the fake refuses anything but cuuint64_t(0)
        trim_graph_mem(dev)
        fp = graph_mem_footprint(dev)
        assert fp.used_current == fp.reserved_current == fp.used_high == 0
    s.close()


def test_view_shows_memory_nodes_with_size_and_address(dev):
    from cugraphlab.graphs.inspect import graph_view, render_text
    from cugraphlab.graphs.memory import MemoryGraph

    with MemoryGraph(dev) as g:
        a = g.alloc(1 << 20)
        g.free(a, [a.node])
        view = graph_view(g)
        assert [n.label for n in view.nodes] == ["MEM_ALLOC", "MEM_FREE"]
        assert view.nodes[0].detail == f"1 MiB (1,048,576 bytes) at {a.dptr:#x}"
        assert view.nodes[1].detail == f"frees {a.dptr:#x}"
        assert "[1] MEM_FREE" in render_text(view)


def test_require_graph_memory_names_a_device_without_pools(dev, monkeypatch):
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.memory import require_graph_memory

    require_graph_memory(dev)
    monkeypatch.setattr(dev, "attribute", lambda name: 0)
    with pytest.raises(UnsupportedError, match="MEMORY_POOLS_SUPPORTED"):
        require_graph_memory(dev)
