"""The chain with graph-allocated intermediates, without a GPU (FakeMemDriver; kernels really compiled by NVRTC):
node order, kernel arguments at the allocations, explicit = captured, reuse bookkeeping, the unfreed lesson's steps,
lifetime."""
from __future__ import annotations

import gc
import struct
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


def _ptrs(launch):
    raw = launch.args.raw()
    return [struct.unpack_from("<Q", raw, 8 * i)[0] for i, k in enumerate(launch.args.signature) if k == "ptr"]


@pytest.mark.parametrize("how", ["explicit", "capture"])
def test_each_op_writes_its_allocation_and_the_next_reads_it(dev, how):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(dev, n=1000, how=how, instantiate=False) as mc:
        t = mc.intermediate_addresses
        assert len(t) == 3 and len(mc.launches) == 4
        add, mul, sub, relu = (_ptrs(l) for l in mc.launches)
        assert add == [t[0], mc.x.ptr, mc.y.ptr]
        assert mul == [t[1], t[0]]
        assert sub == [t[2], t[1], mc.y.ptr]
        assert relu == [mc.out.ptr, t[2]]
        assert all(a.freed_in_graph for a in mc.allocations)


def test_explicit_and_captured_graphs_have_one_topology_in_stream_order(dev):
    from cugraphlab.experiment.memchain import MemChain, topology_check
    from cugraphlab.graphs.inspect import graph_view

    same, diff, explicit, captured = topology_check(dev, 512)
    assert same, diff
    with MemChain(dev, n=512, instantiate=False) as mc:
        labels = [n.label for n in graph_view(mc.graph).nodes]
    assert labels == ["MEM_ALLOC", "KERNEL:add", "MEM_ALLOC", "KERNEL:mul", "MEM_FREE", "MEM_ALLOC", "KERNEL:sub",
                      "MEM_FREE", "KERNEL:relu", "MEM_FREE"]
    assert "MEM_ALLOC" in explicit and "frees 0x" in captured


def test_address_reuse_wants_t3_at_t1_and_t_i_apart_from_t_i_plus_1():
    from cugraphlab.experiment.memchain import AddressReuse

    assert AddressReuse.of([0x10, 0x20, 0x10]).ok
    assert AddressReuse.of([0x10, 0x20, 0x10]).reused == ((2, 0),)
    assert not AddressReuse.of([0x10, 0x20, 0x30]).ok  # no reuse
    assert not AddressReuse.of([0x10, 0x10, 0x20]).ok  # two live at once with one address: wrong
    assert "t3 at t1's address" in str(AddressReuse.of([0x10, 0x20, 0x10]))
    assert AddressReuse.of([0x10, 0x20, 0x10]).to_dict()["addresses"] == ["0x10", "0x20", "0x10"]


def test_run_launches_the_exec_and_close_exec_allows_another(dev, fake):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(dev, n=256) as mc:
        first = mc.exec
        fake.calls.clear()
        mc.run(7)
        assert fake.calls.count("cuGraphLaunch") == 7
        mc.close_exec()
        assert first.closed and mc.instantiate() is not first


def test_bad_arguments_are_refused_in_one_line(dev):
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.memchain import MemChain

    with pytest.raises(InvalidArgumentError, match="at least two ops"):
        MemChain(dev, n=16, ops="relu")
    with pytest.raises(InvalidArgumentError, match="how must be"):
        MemChain(dev, n=16, how="magic")
    with pytest.raises(InvalidArgumentError):
        MemChain(dev, n=0)


def test_unfreed_lesson_runs_every_step_on_the_fake(dev):
    from cugraphlab.experiment.graph_pool_lessons import demonstrate_unfreed

    s = dev.create_stream()
    demo = demonstrate_unfreed(dev, s, 256, seed=3)
    assert demo.ok, demo.steps
    assert len(demo.steps) == 6
    assert demo.relaunch_error == "CUDA_ERROR_INVALID_VALUE" and demo.second_exec_error
    s.close()


def test_unfreed_lesson_fails_when_the_data_is_not_there(dev, fake, monkeypatch):
    from cugraphlab.experiment.graph_pool_lessons import demonstrate_unfreed

    monkeypatch.setattr(fake, "cuMemcpyDtoHAsync", lambda *a: (fake_memnodes.OK,))  # copies nothing
    s = dev.create_stream()
    demo = demonstrate_unfreed(dev, s, 64, seed=3)
    assert not demo.ok and not demo.steps[0]["ok"]
    s.close()


def test_physical_reuse_subtracts_the_baseline(dev):
    from cugraphlab.experiment.graph_pool_lessons import PhysicalReuse, physical_reuse
    from cugraphlab.graphs.memory import GraphMemFootprint

    r = physical_reuse(dev, 1024)
    assert r.graph_bytes == 3 * 4096 and set(r.to_dict()) >= {"reserved_one", "reserved_one_stream", "ok"}
    fp = GraphMemFootprint
    same = PhysicalReuse(fp(0, 0, 100, 100), fp(8, 8, 108, 108), fp(8, 8, 108, 108), fp(16, 16, 116, 116), 12)
    assert same.reserved_one == 8 and same.reserved_two_streams == 16 and same.ok
    summed = PhysicalReuse(fp(0, 0, 100, 100), fp(8, 8, 108, 108), fp(16, 16, 108, 116), fp(16, 16, 116, 116), 12)
    assert not summed.ok
    assert not PhysicalReuse(fp(0, 0, 0, 0), fp(8, 8, 8, 8), fp(8, 8, 8, 8), fp(8, 8, 8, 8), 12, mismatches=1).ok


@pytest.mark.parametrize("how", ["explicit", "capture"])
def test_forgotten_memchain_is_collected_and_every_handle_released_once(dev, fake, how):
    from cugraphlab.experiment.memchain import MemChain

    def make():
        mc = MemChain(dev, n=512, how=how)
        mc.run(3)
        return mc

    obj = make()
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    assert ref() is None
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0 and k != "context"]
    assert live == [] and fake.released_twice() == []
    assert all(not e["alive"] for e in fake.execs.values())


@pytest.mark.parametrize("shape,how", [("line", "explicit"), ("line", "capture"), ("parallel", "explicit"),
                                       ("parallel_end", "explicit"), ("block", "explicit"), ("block", "capture")])
def test_every_shape_wires_the_same_pointers(dev, shape, how):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(dev, n=1000, shape=shape, how=how, instantiate=False) as mc:
        t = mc.intermediate_addresses
        assert len(t) == 3 and len(set(t)) == (2 if shape == "line" else 3)
        add, mul, sub, relu = (_ptrs(l) for l in mc.launches)
        assert add == [t[0], mc.x.ptr, mc.y.ptr] and mul == [t[1], t[0]]
        assert sub == [t[2], t[1], mc.y.ptr] and relu == [mc.out.ptr, t[2]]
        assert all(a.freed_in_graph for a in mc.allocations) and mc.address_reuse().ok
        assert shape in mc.describe()


def _edges(mc):
    from cugraphlab.graphs.inspect import graph_view

    view = graph_view(mc.graph)
    labels = [n.label for n in view.nodes]
    return labels, {(labels[a], labels[b]) if labels.count(labels[a]) == 1 and labels.count(labels[b]) == 1
                    else (a, b) for a, b in view.edges}, view


def test_block_is_one_alloc_four_kernels_one_free_with_aligned_offsets(dev):
    from cugraphlab.experiment.memchain import BLOCK_ALIGN, MemChain

    with MemChain(dev, n=1000, shape="block", instantiate=False) as mc:
        (blk,) = mc.allocations
        t = mc.intermediate_addresses
        stride = -(-4000 // BLOCK_ALIGN) * BLOCK_ALIGN
        assert t == (blk.dptr, blk.dptr + stride, blk.dptr + 2 * stride) and blk.nbytes == 3 * stride
        labels, edges, _ = _edges(mc)
        assert labels == ["MEM_ALLOC", "KERNEL:add", "KERNEL:mul", "KERNEL:sub", "KERNEL:relu", "MEM_FREE"]
        assert edges == {("MEM_ALLOC", "KERNEL:add"), ("KERNEL:add", "KERNEL:mul"), ("KERNEL:mul", "KERNEL:sub"),
                         ("KERNEL:sub", "KERNEL:relu"), ("KERNEL:relu", "MEM_FREE")}


@pytest.mark.parametrize("shape", ["parallel", "parallel_end"])
def test_parallel_shapes_put_allocs_at_the_roots_and_frees_at_the_leaves(dev, fake, shape):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(dev, n=512, shape=shape, instantiate=False) as mc:
        g = fake.graphs[int(mc.graph.handle)]
        kind = {n: fake.nodes[n]["type"].name.replace("CU_GRAPH_NODE_TYPE_", "") for n in g["nodes"]}
        has_parent = {b for _, b in g["edges"]}
        has_child = {a for a, _ in g["edges"]}
        allocs = [n for n in g["nodes"] if kind[n] == "MEM_ALLOC"]
        frees = [n for n in g["nodes"] if kind[n] == "MEM_FREE"]
        kernels = [n for n in g["nodes"] if kind[n] == "KERNEL"]
        assert len(allocs) == len(frees) == 3 and len(kernels) == 4
        assert not any(a in has_parent for a in allocs)  # roots
        assert not any(f in has_child for f in frees)  # leaves
        parents = {n: {a for a, b in g["edges"] if b == n} for n in g["nodes"]}
        for i, k in enumerate(kernels):  # kernel i after kernel i-1 and the alloc of its output
            want = ({kernels[i - 1]} if i else set()) | ({allocs[i]} if i < 3 else set())
            assert parents[k] == want
        last_reader = [kernels[-1]] * 3 if shape == "parallel_end" else kernels[1:]
        assert [parents[f] for f in frees] == [{k} for k in last_reader]
        assert [fake.nodes[f]["dptr"] for f in frees] == list(mc.intermediate_addresses)


def test_shapes_that_capture_cannot_build_are_refused_in_one_line(dev):
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.memchain import MemChain

    with pytest.raises(InvalidArgumentError, match="built explicitly"):
        MemChain(dev, n=16, shape="parallel", how="capture")
    with pytest.raises(InvalidArgumentError, match="shape must be one of"):
        MemChain(dev, n=16, shape="zigzag")


def test_address_reuse_of_shapes_where_all_are_live_together():
    from cugraphlab.experiment.memchain import AddressReuse

    assert AddressReuse.of([0x10, 0x20, 0x30], "block").ok
    assert not AddressReuse.of([0x10, 0x20, 0x10], "parallel").ok  # t1 and t3 are live together
    assert AddressReuse.of([0x10, 0x20, 0x10], "line").expected == ((2, 0),)


def test_unfreed_lesson_needs_the_trim_to_get_the_pool_back(dev, fake, monkeypatch):
    from cugraphlab.experiment import graph_pool_lessons as lessons

    s = dev.create_stream()
    monkeypatch.setattr(lessons, "trim_graph_mem", lambda device: None)  # the pool keeps the memory
    demo = lessons.demonstrate_unfreed(dev, s, 256, seed=3)
    assert not demo.ok and not demo.steps[-1]["ok"] and all(st["ok"] for st in demo.steps[:-1])
    assert demo.footprint_closed.used_current > demo.footprint_before.used_current
    s.close()


def test_unroll_needs_the_block_shape_and_a_positive_count():
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.memchain import _check_unroll

    assert _check_unroll(10, "block") == 10 and _check_unroll(1, "line") == 1
    with pytest.raises(InvalidArgumentError, match="block shape"):
        _check_unroll(2, "line")
    with pytest.raises(InvalidArgumentError):
        _check_unroll(0, "block")
