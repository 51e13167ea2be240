"""Graph memory nodes on the GPU: the chain with graph-allocated intermediates bit-exact in every shape (explicit and
captured, one topology), virtual-address reuse inside a graph, physical memory shared on one stream, the
unfreed-allocation relaunch error and AUTO_FREE_ON_LAUNCH, the footprint, and lifetime (memory back after close and
after GC, once the graph pool is trimmed: cuGraphExecDestroy leaves the memory in the pool, still counted as used
and reserved, until cuDeviceGraphMemTrim)."""
from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.gpu

MIB = 1 << 20


BUILDS = [("line", "explicit"), ("line", "capture"), ("parallel", "explicit"), ("parallel_end", "explicit"),
          ("block", "explicit"), ("block", "capture")]


@pytest.mark.parametrize("n", [1 << 20, 1024, 1000])
@pytest.mark.parametrize("shape,how", BUILDS)
def test_memchain_is_bit_exact_on_fresh_inputs(device, kernels, shape, how, n):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, n, how=how, shape=shape, kernels=kernels) as mc:
        for _ in range(3):  # each: fresh inputs, poisoned output, one launch
            v = mc.verify()
            assert v.ok, str(v)
        mc.prepare()
        mc.run(50)
        assert mc.check_result().ok


@pytest.mark.parametrize("n", [1 << 20, 1000])
def test_block_with_ten_iterations_per_graph_is_bit_exact(device, kernels, n):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, n, shape="block", kernels=kernels, unroll=10) as mc:
        assert "10 iterations per graph" in mc.describe()
        assert mc.graph.node_count == 2 + 10 * 4  # one alloc, 10 x the 4 kernels, one free
        for _ in range(2):
            v = mc.verify()
            assert v.ok, str(v)


def test_an_unwritten_output_fails_the_check(device, kernels):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, 4096, kernels=kernels) as mc:
        mc.prepare()  # poisoned, never launched
        assert mc.check_result().mismatches == 4096


def test_explicit_and_captured_have_one_topology(device, kernels):
    from cugraphlab.experiment.memchain import topology_check

    same, diff, explicit, _ = topology_check(device, 1 << 16, kernels=kernels)
    assert same, diff
    assert explicit.count("MEM_ALLOC") == 3 and explicit.count("MEM_FREE") == 3 and "256 KiB" in explicit


@pytest.mark.parametrize("how", ["explicit", "capture"])
def test_t3_takes_t1s_address_and_live_ones_differ(device, kernels, how):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, 1 << 20, how=how, kernels=kernels, instantiate=False) as mc:
        r = mc.address_reuse()
        assert r.overlapping_distinct, str(r)
        assert r.ok, f"no virtual-address reuse inside the graph: {r}"


@pytest.mark.parametrize("shape", ["parallel", "parallel_end", "block"])
def test_shapes_with_all_intermediates_live_together_keep_them_apart(device, kernels, shape):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, 1 << 20, shape=shape, kernels=kernels, instantiate=False) as mc:
        t = sorted(mc.intermediate_addresses)
        assert all(b - a >= 4 * MIB for a, b in zip(t, t[1:])), mc.address_reuse()  # no overlap
        assert mc.address_reuse().ok


def test_two_graphs_on_one_stream_share_physical_memory(device, kernels):
    from cugraphlab.experiment.graph_pool_lessons import physical_reuse

    r = physical_reuse(device, 1 << 20, kernels=kernels)
    assert r.mismatches == 0
    assert r.reserved_one > 0, str(r)
    assert r.reserved_one_stream <= r.reserved_one, str(r)


def test_unfreed_allocation_relaunch_and_auto_free(device):
    from cugraphlab.experiment.graph_pool_lessons import demonstrate_unfreed

    with device.create_stream() as s:
        demo = demonstrate_unfreed(device, s, 1 << 16)
    assert demo.ok, "\n".join(f"{st['ok']}: {st['text']}" for st in demo.steps)
    assert demo.relaunch_error == "CUDA_ERROR_INVALID_VALUE"


def test_footprint_follows_the_exec_and_the_trim(device, kernels):
    from cugraphlab.experiment.memchain import MemChain
    from cugraphlab.graphs.memory import graph_mem_footprint, reset_graph_mem_high, trim_graph_mem

    device.synchronize()
    trim_graph_mem(device)
    reset_graph_mem_high(device)
    base = graph_mem_footprint(device)
    free_before = device.memory_info()[0]
    with MemChain(device, 1 << 20, kernels=kernels) as mc:
        assert graph_mem_footprint(device).used_current == base.used_current  # nothing mapped before a launch
        assert mc.verify().ok
        device.synchronize()
        after = graph_mem_footprint(device)
        assert after.used_current - base.used_current >= 2 * 4 * MIB  # t1/t3 and t2 at least
        assert after.reserved_current >= after.used_current and after.used_high >= after.used_current
        mc.close_exec()
        device.synchronize()
        # the pool keeps what the exec had (the H200's driver 580: still mapped, still "used"): never more
        closed = graph_mem_footprint(device)
        assert base.used_current <= closed.used_current <= after.used_current
        assert closed.reserved_current <= after.reserved_current
    device.synchronize()
    trim_graph_mem(device)
    trimmed = graph_mem_footprint(device)
    assert trimmed.used_current == base.used_current, f"after the trim: {trimmed}; at the start: {base}"
    assert trimmed.reserved_current <= base.reserved_current, f"after the trim: {trimmed}; at the start: {base}"
    missing = free_before - device.memory_info()[0]
    assert abs(missing) <= 2 * MIB, f"{missing / MIB:.1f} MiB of device memory not back after close + trim"


def test_relaunch_error_is_typed_with_the_cuda_result(device):
    from cugraphlab.graphs.memory import MemoryGraph, UnfreedAllocationError

    with device.create_stream() as s, MemoryGraph(device) as g:
        g.alloc(1 << 16)
        with g.instantiate() as exe:
            exe.launch(s)
            with pytest.raises(UnfreedAllocationError) as e:
                exe.launch(s)
            assert e.value.name == "CUDA_ERROR_INVALID_VALUE" and "AUTO_FREE_ON_LAUNCH" in str(e.value)
            exe.free_outstanding(s)
            exe.launch(s)
        s.synchronize()


def _make(device, kernels, what) -> list:
    """The objects of one case, the owner first: a MemChain, or an exec whose last launch left its allocation live
    with its graph and stream (closed after it in the "close" case, forgotten with it in the "gc" case)."""
    from cugraphlab.experiment.memchain import MemChain
    from cugraphlab.graphs.memory import MemoryGraph

    if what == "unfreed":
        s = device.create_stream()
        g = MemoryGraph(device)
        g.alloc(1 << 20)
        exe = g.instantiate(auto_free=True)
        exe.launch(s)
        exe.launch(s)
        return [exe, g, s]
    shape, how = what.split("/")
    mc = MemChain(device, 1 << 18, how=how, shape=shape, kernels=kernels)
    mc.run(3)
    return [mc]


@pytest.mark.parametrize("what", ["line/explicit", "line/capture", "block/explicit", "parallel/explicit",
                                  "unfreed"])
@pytest.mark.parametrize("how", ["close", "gc"])
def test_memory_comes_back_after_close_and_after_gc(device, kernels, what, how):
    from cugraphlab.graphs.memory import graph_mem_footprint, trim_graph_mem

    warm = [_make(device, kernels, what) for _ in range(4)]  # the same objects once: the driver's own first use
    for objs in warm:
        for obj in objs:
            obj.close()
    del warm
    gc.collect()
    device.synchronize()
    trim_graph_mem(device)
    free_before = device.memory_info()[0]
    used_before = graph_mem_footprint(device).used_current
    objects = [_make(device, kernels, what) for _ in range(8)]
    device.synchronize()
    used_live = graph_mem_footprint(device).used_current
    assert used_live > used_before
    if how == "close":
        for objs in objects:
            for obj in objs:
                obj.close()
    del objects
    gc.collect()
    device.synchronize()
    # closed or collected: the memory is back in the graph pool, which keeps it until the trim
    assert used_before <= graph_mem_footprint(device).used_current <= used_live
    trim_graph_mem(device)
    assert graph_mem_footprint(device).used_current == used_before
    after = free_before - device.memory_info()[0]
    assert abs(after) <= 2 * MIB, f"{what}/{how}: {after / MIB:.1f} MiB still held after close + trim"


def test_view_of_a_real_graph_names_sizes_and_addresses(device, kernels):
    from cugraphlab.experiment.memchain import MemChain

    with MemChain(device, 1 << 20, kernels=kernels, instantiate=False) as mc:
        text = mc.view()
        t1 = mc.intermediate_addresses[0]
        assert f"4 MiB (4,194,304 bytes) at {t1:#x}" in text and f"frees {t1:#x}" in text
