"""Struct views on a real GPU: kernel node names read through cuGraphKernelNodeGetParams + cuFuncGetName while the
params live (graphs.inspect.kernel_name), with allocation churn in between, and a refused instantiate's node still
naming the host node once the frames that made it are gone (tests/graphs/test_struct_views.py fakes the same)."""
from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def chain(device, kernels):
    from cugraphlab import Chain

    with Chain(device, n=1 << 12, kernels=kernels) as ch:
        yield ch


def test_kernel_names_of_the_chain_graph(chain):
    from cugraphlab.experiment.nodes import chain_graph_nodes
    from cugraphlab.graphs.inspect import kernel_name, node_label

    graph, nodes = chain_graph_nodes(chain)
    with graph:
        for _ in range(3):
            names = [kernel_name(n) for n in nodes]
            junk = [bytearray(64) for _ in range(10000)]  # reuse freed small blocks, as a long run does
            del junk
            assert names == list(chain.ops)
            assert [node_label(n) for n in nodes] == [f"KERNEL:{op}" for op in chain.ops]


def test_refused_instantiate_node_outlives_its_params(chain):
    from cugraphlab.experiment.nodes import host_chain_graph
    from cugraphlab.graphs.controls import InstantiateError, instantiate_flags, instantiate_with_params
    from cugraphlab.graphs.host import HostCallback
    from cugraphlab.graphs.inspect import node_kind

    with HostCallback.python() as cb, host_chain_graph(chain, cb) as graph:
        e = None
        try:
            instantiate_with_params(graph, instantiate_flags("device_launch")).close()
        except InstantiateError as err:
            e = err
        assert e is not None, "the driver accepted a host node in a device-launch graph"
        e.__traceback__ = None  # the frames holding the params struct go now
        gc.collect()
        junk = [bytearray(64) for _ in range(10000)]
        del junk
        assert e.node_label == "HOST" and node_kind(e.node) == "HOST"  # the graph still lives: ask the driver
