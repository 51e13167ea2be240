"""cuGraphExecUpdate through ctypes without a GPU: the C function is a ctypes callback standing in for libcuda's, so
the arguments really cross a C call (64-bit pointers), and the libcuda function gets argtypes and restype."""
from __future__ import annotations

import ctypes

import pytest

from cugraphlab.core.errors import CudaError, UnsupportedError
from cugraphlab.graphs import update as upd
from cugraphlab.graphs.update import DirectExecUpdate, ResultInfo

PROTO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
BIG = 0x7F12_3456_7890  # above 2^32: a pointer truncated to 32 bits would show


class _Handle:
    def __init__(self, h):
        self.handle = h


def _fake(answer):
    seen = []

    def c_fn(exe, graph, info):
        seen.append((exe, graph))
        r = ResultInfo.from_address(info)
        status, result, node = answer(graph)
        r.result, r.errorNode, r.errorFromNode = result, node, None
        return status

    fn = PROTO(c_fn)
    return fn, seen


def test_a_bound_call_passes_64_bit_handles_and_returns_the_plain_status():
    fn, seen = _fake(lambda g: (0, 0, None))
    direct = DirectExecUpdate(_Handle(BIG), fn=fn)
    call = direct.bind(_Handle(BIG + 0x100))
    assert call() == 0 and call() == 0
    assert seen == [(BIG, BIG + 0x100)] * 2
    report = direct.update(_Handle(BIG + 0x200))
    assert report.updated and not report.refused
    assert (report.path, report.result, report.error_node, report.reason) == (
        "exec_update", "CU_GRAPH_EXEC_UPDATE_SUCCESS", None, "")


def test_a_refused_update_reads_the_reused_result_info(monkeypatch):
    from cuda.bindings import driver as d

    failure = int(d.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
    topo = int(d.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
    monkeypatch.setattr(upd, "_label", lambda node: f"node {int(node):#x}")
    fn, _ = _fake(lambda g: (failure, topo, 0xABC0))
    direct = DirectExecUpdate(_Handle(BIG), fn=fn)
    report = direct.update(_Handle(5))
    assert report.refused and not report.updated
    assert report.result == "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED" and report.error_node == "node 0xabc0"
    assert report.reason == upd.UPDATE_REASONS[report.result]
    assert direct.info.result == topo  # the one struct, filled in by the C call


def test_other_failures_raise_typed_errors():
    fn, _ = _fake(lambda g: (400, 0, None))  # CUDA_ERROR_INVALID_HANDLE
    with pytest.raises(CudaError, match="cuGraphExecUpdate"):
        DirectExecUpdate(_Handle(1), fn=fn).update(_Handle(2))


class _FakeLib:
    def __init__(self):
        self.cuGraphExecUpdate_v2 = type("F", (), {})()


def test_libcuda_function_gets_argtypes_and_restype(monkeypatch):
    lib = _FakeLib()
    monkeypatch.setattr(upd.ctypes, "CDLL", lambda name: lib)
    fn = upd._libcuda_exec_update()
    assert fn.argtypes == (ctypes.c_void_p,) * 3 and fn.restype is ctypes.c_int


def test_no_libcuda_is_unsupported(monkeypatch):
    def missing(name):
        raise OSError("libcuda.so.1: cannot open shared object file")

    monkeypatch.setattr(upd.ctypes, "CDLL", missing)
    assert upd._libcuda_exec_update() is None and upd._result_info_from_driver(1, 2) is None
    with pytest.raises(UnsupportedError, match="libcuda"):
        DirectExecUpdate(_Handle(1))


def test_the_ctypes_path_is_one_of_the_measured_paths():
    from cugraphlab.bench.graphs.update import CTYPES_PATH, UPDATE_PATHS
    from cugraphlab.report.graphs import UPDATE_PATH_CALLS

    assert CTYPES_PATH == "exec_update (ctypes)"
    assert UPDATE_PATHS.index(CTYPES_PATH) == UPDATE_PATHS.index("exec_update") + 1
    assert CTYPES_PATH in UPDATE_PATH_CALLS
