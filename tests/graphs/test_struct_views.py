"""A handle member of a cuda.bindings struct (``params.func``, ``params.fn``, ``params.hErrNode_out``) is a view into
the struct's own memory, not a copy: read after the struct is gone, it reads freed memory (and cuFuncGetName handed
such a CUfunction follows garbage). The fakes here return structs that overwrite those members when they die, so code
that drops the struct too early sees the poison at once. No GPU."""
from __future__ import annotations

import gc

import pytest
from cuda.bindings import driver as real

from fake_driver import OK, FakeDriver, patch_driver

POISON = 0xDEAD


class DyingKernelParams(real.CUDA_KERNEL_NODE_PARAMS):
    def __del__(self):
        self.func = real.CUfunction(POISON)


class DyingHostParams(real.CUDA_HOST_NODE_PARAMS):
    def __del__(self):
        self.fn = real.CUhostFn(POISON)


class DyingInstantiateParams(real.CUDA_GRAPH_INSTANTIATE_PARAMS):
    def __del__(self):
        self.hErrNode_out = real.CUgraphNode(POISON)


class ViewsDriver(FakeDriver):
    FUNC, FN, ERR_NODE = 0x1230, 0x4560, 0x7890
    CUDA_GRAPH_INSTANTIATE_PARAMS = DyingInstantiateParams  # what controls.instantiate_with_params makes

    def cuGraphKernelNodeGetParams(self, node):
        p = DyingKernelParams()
        p.func = real.CUfunction(self.FUNC)
        return (OK, p)

    def cuFuncGetName(self, func):
        if int(func) != self.FUNC:
            return (real.CUresult.CUDA_ERROR_INVALID_HANDLE, None)
        return (OK, b"add")

    def cuGraphNodeGetType(self, node):
        return (OK, real.CUgraphNodeType.CU_GRAPH_NODE_TYPE_HOST)

    def cuGraphHostNodeGetParams(self, node):
        p = DyingHostParams()
        p.fn = real.CUhostFn(self.FN)
        return (OK, p)

    def cuGraphInstantiateWithParams(self, graph, p):
        p.result_out = real.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
        p.hErrNode_out = real.CUgraphNode(self.ERR_NODE)
        return (real.CUresult.CUDA_ERROR_INVALID_VALUE, None)


@pytest.fixture
def fake(monkeypatch):
    f = ViewsDriver()
    return patch_driver(monkeypatch, f)


def test_the_fake_struct_really_poisons_a_view_it_outlives():
    def get():
        p = DyingKernelParams()
        p.func = real.CUfunction(ViewsDriver.FUNC)
        return p

    view = get().func  # the struct is gone after this line
    gc.collect()
    assert int(view) == POISON


def test_kernel_name_reads_the_function_while_its_params_live(fake):
    from cugraphlab.graphs.inspect import kernel_name

    assert kernel_name(real.CUgraphNode(0x100)) == "add"


def test_host_node_detail_reads_fn_while_its_params_live(fake):
    from cugraphlab.graphs.inspect import node_detail

    assert node_detail(real.CUgraphNode(0x100), "HOST") == f"host fn {ViewsDriver.FN:#x}"


def test_a_refused_instantiate_keeps_its_own_copy_of_the_node(fake):
    from cugraphlab import Device
    from cugraphlab.graphs.controls import InstantiateError, instantiate_flags, instantiate_with_params
    from cugraphlab.graphs.exec import Graph

    with Device(0) as dev, Graph(dev) as g:
        try:
            instantiate_with_params(g, instantiate_flags("device_launch"))
        except InstantiateError as e:
            error = e
        else:
            pytest.fail("instantiate was not refused")
    error.__traceback__ = None  # the frames (and the params struct in them) go now
    gc.collect()
    assert int(error.node) == ViewsDriver.ERR_NODE and error.node_label == "HOST"
