"""The exec_update study's native update (benchmarks/studies/exec_update/native_update.py) on the CPU: the C fire()
calls a fake cuGraphExecUpdate_v2 / cuGraphExecKernelNodeSetParams_v2 written in C (tests/helpers/native_update_fake.py).

What must hold: the C struct's layout is ctypes' field by field, and the kernel-node params and result info are
byte for byte what cuda-bindings (built from cuda.h) lays out; every argument reaches the driver function (64-bit
handles, the C-owned result info, the params struct, kernelParams); the result info is zeroed before each update and
readable after it; a refused update raises the typed CudaError naming the CUresult, the update result and the node,
and ``update()`` returns it instead; close twice, fire after close, dropped without close, collected.
"""
from __future__ import annotations

import ctypes
import gc
import shutil
import sys
import weakref

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError, CugraphlabError, InvalidArgumentError, UnsupportedError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")

BIG = 0x7F12_3456_7890  # above 32 bits: a handle cut to an int would show


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return Cache(tmp_path_factory.mktemp("native-update-cache"))


@pytest.fixture(scope="module")
def fake_module(cache):
    from native_update_fake import FakeUpdateDriver

    return FakeUpdateDriver(cache)


@pytest.fixture
def fake(fake_module):
    fake_module.reset()
    return fake_module


def _update(fake, cache, exe=BIG, graph=BIG + 0x100, **kw):
    from studies.exec_update.native_update import NativeExecUpdate

    kw.setdefault("exec_update", fake.exec_update)
    return NativeExecUpdate(exe, graph, cache=cache, **kw)


class _Handle:
    def __init__(self, v):
        self.v = v

    def __int__(self):
        return self.v


def _launch(args, grid=(9, 2, 1), block=(128, 2, 1), shared=16, programmatic=False):
    from cugraphlab.core.launch import Launch, LaunchConfig

    class Kernel:
        name = "add"
        handle = _Handle(BIG + 0xF00D)

    launch = Launch.__new__(Launch)  # no binding needed: the native set params reads kernel, config and args only
    launch.kernel, launch.stream = Kernel(), None
    launch.config = LaunchConfig(grid, block, shared, programmatic=programmatic)
    launch.args = args
    return launch


def test_the_c_layout_is_ctypes_and_the_driver_structs_are_cuda_hs(cache):
    from cuda.bindings import driver as d

    from studies.exec_update import native_update as nu

    nu.native_update_library(cache)  # raises UnsupportedError if C and ctypes disagree on any offset
    assert ctypes.sizeof(nu.KernelNodeParams) == 72 and ctypes.sizeof(nu.ResultInfo) == 24
    b = d.CUDA_KERNEL_NODE_PARAMS()  # cuda-bindings' own struct (CUDA_KERNEL_NODE_PARAMS_v2 from cuda.h)
    b.func = d.CUfunction(BIG + 1)
    b.gridDimX, b.gridDimY, b.gridDimZ, b.blockDimX, b.blockDimY, b.blockDimZ = 2, 3, 4, 5, 6, 7
    b.sharedMemBytes, b.kernelParams, b.extra = 8, BIG + 2, BIG + 3
    b.kern, b.ctx = d.CUkernel(BIG + 4), d.CUcontext(BIG + 5)
    ours = nu.KernelNodeParams(BIG + 1, 2, 3, 4, 5, 6, 7, 8, BIG + 2, BIG + 3, BIG + 4, BIG + 5)
    assert ctypes.string_at(b.getPtr(), 72) == bytes(ours)
    info = d.CUgraphExecUpdateResultInfo()
    info.result = d.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
    info.errorNode, info.errorFromNode = d.CUgraphNode(BIG + 6), d.CUgraphNode(BIG + 7)
    ours_info = nu.ResultInfo(int(info.result), BIG + 6, BIG + 7)
    raw = ctypes.string_at(info.getPtr(), 24)
    assert raw[:4] == bytes(ours_info)[:4] and raw[8:] == bytes(ours_info)[8:]  # bytes 4-7: padding


def test_a_layout_disagreement_is_one_unsupported_line(monkeypatch, tmp_path):
    from cugraphlab.core import native_library
    from studies.exec_update import native_update as nu

    assert len(native_library.ctypes_layout(nu._State)) == 29  # what the C side lists (cgl_update_layout)
    monkeypatch.setattr(native_library, "_libraries", {})
    monkeypatch.setattr(native_library, "ctypes_layout", lambda struct: [0] * 29)
    with pytest.raises(UnsupportedError, match="native update: the C compiler lays the struct out") as e:
        nu.native_update_library(Cache(tmp_path))
    assert "\n" not in str(e.value)


def test_every_argument_of_an_update_reaches_the_driver_function(fake, cache):
    upd = _update(fake, cache)
    assert upd.fire() is None
    r = fake.rec
    assert (r.exec, r.target, r.updates) == (BIG, BIG + 0x100, 1)
    assert r.info == ctypes.addressof(upd.info)  # the C-owned result info, the same struct every call
    for _ in range(999):
        upd.fire()
    assert r.updates == 1000 == upd.calls and upd.failures == 0 and upd.status == 0
    assert upd.result == "CU_GRAPH_EXEC_UPDATE_SUCCESS" and upd.error_node is None
    with pytest.raises(TypeError):
        upd.fire(1)  # METH_NOARGS
    assert r.updates == 1000
    upd.close()


def test_a_refused_update_raises_naming_the_cuda_result_the_update_result_and_the_node(fake, cache):
    upd = _update(fake, cache)
    fake.rec.status, fake.rec.info_result, fake.rec.info_node = 910, 2, BIG + 0x42  # TOPOLOGY_CHANGED
    with pytest.raises(CudaError) as e:
        upd.fire()
    text = str(e.value)
    assert e.value.code == 910 and e.value.name == "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"
    assert "cuGraphExecUpdate (native)" in text and "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED" in text
    assert "other nodes or edges" in text and f"{BIG + 0x42:#x}" in text  # no driver here: the node by address
    assert upd.result == "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED" and upd.info.errorNode == BIG + 0x42
    assert upd.status == 910 and upd.failures == 1
    report = upd.update()  # the same refusal, answered like try_exec_update: an UpdateReport
    assert (report.updated, report.result, report.reason) == (False, "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED",
                                                              "the new graph has other nodes or edges")
    assert report.error_node is not None and f"{BIG + 0x42:#x}" in report.error_node
    assert fake.rec.info_seen == 0  # the result info was zeroed before the call
    fake.rec.status, fake.rec.info_result, fake.rec.info_node = 0, 0, 0
    report = upd.update()
    assert report.updated and (report.result, report.error_node, report.reason) == (
        "CU_GRAPH_EXEC_UPDATE_SUCCESS", None, "")
    assert upd.result == "CU_GRAPH_EXEC_UPDATE_SUCCESS" and upd.calls == 3 and upd.failures == 2


@pytest.mark.parametrize("status, name", [(400, "CUDA_ERROR_INVALID_HANDLE"), (1, "CUDA_ERROR_INVALID_VALUE"),
                                          (123456, "123456")])
def test_other_failures_raise_their_typed_error_also_from_update(fake, cache, status, name):
    upd = _update(fake, cache)
    fake.rec.status = status
    with pytest.raises(CudaError) as e:
        upd.fire()
    assert e.value.code == status and name in str(e.value) and "cuGraphExecUpdate (native)" in str(e.value)
    with pytest.raises(CudaError):
        upd.update()  # only a refusal is answered; anything else still raises
    assert upd.failures == 2


def test_handles_may_be_objects_and_bad_ones_are_refused(fake, cache):
    class Obj:
        def __init__(self, h):
            self.handle = h

    upd = _update(fake, cache, exe=Obj(_Handle(BIG + 1)), graph=Obj(BIG + 2))
    upd()
    assert (fake.rec.exec, fake.rec.target) == (BIG + 1, BIG + 2)
    with pytest.raises(InvalidArgumentError):
        _update(fake, cache, graph="not a handle")
    with pytest.raises(InvalidArgumentError):
        _update(fake, cache, exec_update=0)
    assert fake.rec.updates == 1


def test_close_twice_then_fire_raises_and_does_not_call(fake, cache):
    with _update(fake, cache) as upd:
        upd.fire()
    assert upd.closed and "closed" in repr(upd)
    upd.close()
    with pytest.raises(CugraphlabError, match="closed.*NativeExecUpdate"):
        upd.fire()
    assert fake.rec.updates == 1 and upd.status == -1


def test_fire_outlives_its_owner_safely(fake, cache):
    fire = _update(fake, cache).fire
    gc.collect()
    with pytest.raises(CugraphlabError, match="closed"):
        fire()
    assert fake.rec.updates == 0


def test_dropped_without_close_everything_is_collected(fake, cache):
    from cugraphlab.core.launch import PackedArgs

    upd = _update(fake, cache)
    upd.fire()
    owner, state, fin = weakref.ref(upd), weakref.ref(upd._state), upd._finalizer
    del upd
    gc.collect()
    assert owner() is None and not fin.alive and state() is None
    args = PackedArgs(("u64",), (5,))
    sp = _set_params(fake, cache, args)
    owner, state, storage = weakref.ref(sp), weakref.ref(sp._state), weakref.ref(args.storage)
    sp.me = sp  # a cycle on the Python side; the capsule's context never reaches back
    del sp, args
    gc.collect()
    assert owner() is None and state() is None and storage() is None


def test_refcounts_do_not_drift(fake, cache):
    upd = _update(fake, cache)
    fire = upd.fire
    refs = sys.getrefcount(fire)
    for _ in range(10_000):
        fire()
    fake.rec.status = 2
    for _ in range(2_000):
        try:
            fire()
        except CudaError:
            pass
    assert sys.getrefcount(fire) == refs and upd.failures == 2_000


def _set_params(fake, cache, args, node=BIG + 0x300, **kw):
    from studies.exec_update.native_update import NativeKernelNodeSetParams

    return NativeKernelNodeSetParams(BIG, node, _launch(args, **kw.pop("launch_kw", {})), set_params=fake.set_params,
                                     cache=cache, **kw)


def test_set_params_passes_cuda_hs_kernel_node_params_byte_for_byte(fake, cache):
    from cuda.bindings import driver as d

    from cugraphlab.core.launch import PackedArgs

    args = PackedArgs(("u64", "u64", "f32"), (0xABCDEF0123, 3, 1.5))
    sp = _set_params(fake, cache, args)
    assert sp.fire() is None
    r = fake.rec
    assert (r.exec, r.target, r.set_params, r.updates) == (BIG, BIG + 0x300, 1, 0)
    b = d.CUDA_KERNEL_NODE_PARAMS()  # what graphs.build.kernel_node_params gives the binding, from cuda.h
    b.func = d.CUfunction(BIG + 0xF00D)
    b.gridDimX, b.gridDimY, b.gridDimZ, b.blockDimX, b.blockDimY, b.blockDimZ = 9, 2, 1, 128, 2, 1
    b.sharedMemBytes, b.kernelParams, b.extra = 16, args.address, 0
    assert fake.params_bytes() == ctypes.string_at(b.getPtr(), 72)
    assert r.first_slot == 0xABCDEF0123  # the driver reads the packed arguments through kernelParams
    args.set(0, 0x42)  # kernelParams is the Launch's own array: a rewrite shows at the next call
    sp()
    assert r.first_slot == 0x42 and sp.calls == 2 and "add" in repr(sp)
    fake.rec.status = 1
    with pytest.raises(CudaError) as e:
        sp.fire()
    assert e.value.name == "CUDA_ERROR_INVALID_VALUE" and "cuGraphExecKernelNodeSetParams (native)" in str(e.value)
    sp.close()
    with pytest.raises(CugraphlabError, match="closed"):
        sp.fire()
    assert r.set_params == 3


def test_set_params_refuses_what_it_cannot_pass(fake, cache):
    from cugraphlab.core.launch import PackedArgs
    from studies.exec_update.native_update import NativeKernelNodeSetParams

    with pytest.raises(UnsupportedError, match="programmatic"):
        _set_params(fake, cache, PackedArgs((), ()), launch_kw={"programmatic": True})
    with pytest.raises(InvalidArgumentError):
        NativeKernelNodeSetParams(BIG, 1, "not a launch", set_params=fake.set_params, cache=cache)
    assert fake.rec.set_params == 0


def test_the_gil_can_be_released(fake, cache):
    upd = _update(fake, cache, release_gil=True)
    upd.fire()
    assert "GIL released" in upd.call and fake.rec.updates == 1
    fake.rec.status = 400
    with pytest.raises(CudaError, match="GIL released"):
        upd.fire()


def test_no_c_compiler_is_one_unsupported_line(monkeypatch, tmp_path):
    from studies.exec_update import native_update as nu

    monkeypatch.setenv("CC", "no-such-compiler-cgl")
    monkeypatch.setattr("cugraphlab.core.native_library._libraries", {})
    with pytest.raises(UnsupportedError) as e:
        nu.native_update_library(Cache(tmp_path))
    assert "no C compiler" in str(e.value) and "\n" not in str(e.value)


def test_the_library_is_built_once_per_cache(cache):
    from studies.exec_update.native_update import native_update_library

    assert native_update_library(cache) is native_update_library(cache)
