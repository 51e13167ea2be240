"""The node families on the GPU: every lesson bit-exact against NumPy on fresh random inputs with poisoned outputs,
host callbacks called once per launch (Python and C), a refused instantiate naming the node, and lifetimes: graphs
with host nodes dropped without close() free their trampolines and device memory."""
from __future__ import annotations

import gc
import weakref

import pytest

pytestmark = pytest.mark.gpu

N = 1 << 18


@pytest.fixture
def chain(device, kernels):
    from cugraphlab import Chain

    with Chain(device, n=N, kernels=kernels) as ch:
        yield ch


def _assert_ok(result):
    assert result.ok, str(result)


@pytest.mark.parametrize("kind", ["python", "c"])
@pytest.mark.parametrize("how", ["explicit", "capture"])
def test_host_node_chain_is_bit_exact_and_called_once_per_launch(chain, kind, how):
    from cugraphlab.experiment.nodes import check_host

    _assert_ok(check_host(chain, kinds=(kind,), hows=(how,), launches=4))


def test_event_pair_and_timed_segments(chain):
    from cugraphlab.experiment.nodes import check_events

    r = check_events(chain)
    _assert_ok(r)
    assert "0:add" in r.facts["segments us"]


def test_nested_and_clone_and_join(chain):
    from cugraphlab.experiment.nodes import check_clone, check_join, check_nested

    _assert_ok(check_nested(chain))
    _assert_ok(check_clone(chain))
    r = check_join(chain)
    _assert_ok(r)
    assert r.facts["edges into the join"] == 4


def test_toggle_disabled_mul_is_the_chain_without_mul(chain):
    from cugraphlab.experiment.nodes import check_toggle

    r = check_toggle(chain)
    _assert_ok(r)
    assert r.facts["elements where mul-disabled differs from the full chain"] > 0


def test_priority_graph_with_upload_in_one_call(chain):
    from cugraphlab.experiment.nodes import check_priority

    r = check_priority(chain)
    _assert_ok(r)
    least, greatest = r.facts["priority range (least, greatest)"]
    assert r.facts["node priorities"] == [greatest] * 4


def test_device_launch_instantiate_refuses_and_names_the_host_node(chain):
    from cugraphlab.experiment.nodes import refused_instantiate

    e = refused_instantiate(chain)
    assert e is not None, "the driver accepted a host node in a device-launch graph"
    assert e.node_label == "HOST", str(e)
    assert e.result == "CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED", str(e)


def test_python_callback_survives_its_dropped_reference_on_the_gpu(chain):
    from cugraphlab.experiment.nodes import host_chain_graph
    from cugraphlab.graphs.host import HostCallback

    seen = []
    cb = HostCallback.python(lambda: seen.append(1))
    graph = host_chain_graph(chain, cb)
    tramp = weakref.ref(cb.trampoline)
    del cb
    exe = graph.instantiate()
    del graph  # dropped without close: the exec keeps the trampoline
    gc.collect()
    for _ in range(5):
        exe.launch(chain.stream)
    chain.stream.synchronize()
    assert seen == [1] * 5 and tramp() is not None
    del exe  # dropped with launches done: freed by the collector, the context waited for first
    gc.collect()
    assert tramp() is None


def test_dropped_host_node_execs_give_memory_and_trampolines_back(device, kernels):
    from cugraphlab import Chain
    from cugraphlab.experiment.nodes import host_chain_graph, nested_chain_graph
    from cugraphlab.graphs.host import HostCallback

    def make():
        chain = Chain(device, n=N, kernels=kernels)
        cb = HostCallback.python()
        g = host_chain_graph(chain, cb, "capture")
        exe = g.instantiate()
        exe.upload(chain.stream)
        exe.launch(chain.stream)
        nested = nested_chain_graph(chain)
        chain.keep = (g, exe, nested)  # chain -> graphs: dropped together
        return chain, weakref.ref(cb.trampoline)

    warm = [make() for _ in range(5)]
    for c, _ in warm:
        for r in c.keep:
            r.close()
        c.close()
    del warm
    gc.collect()
    device.synchronize()
    free_before = device.memory_info()[0]
    made = [make() for _ in range(10)]
    device.synchronize()
    refs = [r for _, r in made]
    held = free_before - device.memory_info()[0]
    assert held >= 10 * N * 4
    del made
    gc.collect()
    device.synchronize()
    assert all(r() is None for r in refs)
    assert abs(free_before - device.memory_info()[0]) <= 1 << 20
