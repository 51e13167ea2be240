"""The CUPTI mode on the GPU: CuPy's synchronizing calls inside a cugraphlab capture are named (the driver or
runtime call, its class, this file's line); the gallery with its raw cases names every call; nothing is left
subscribed; the mode slows capture, never replay. Skipped without cupti-python (or libcupti)."""
from __future__ import annotations

import math
import pathlib

import pytest

pytestmark = pytest.mark.gpu
THIS = pathlib.Path(__file__).name


def _lib():
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.doctor.cupti import cupti_library

    try:
        return cupti_library()
    except UnsupportedError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def lib():
    return _lib()


def line_of(text: str) -> int:
    src = pathlib.Path(__file__).read_text().splitlines()
    return next(i + 1 for i, l in enumerate(src) if text in l)


def _explained_cupy(device, body):
    from cugraphlab.graphs.capture import capture
    from cugraphlab.graphs.doctor import cupti as doctor_cupti

    with device.create_stream() as s, device.load_kernels(names=["empty"]) as ks:
        launch = ks["empty"].prepare((), (), ((1,), (1,)), s)
        cap = capture(s, explain=True, cupti=True)
        try:
            with cap:
                launch()
                body(s)
        except Exception:  # CuPy raises its own error for the refused call, or EndCapture fails: CaptureError
            pass
        assert doctor_cupti._HUB.handle is None, "left subscribed"
        if cap.graph is not None:  # the driver accepted the call: the capture made a graph
            cap.graph.close()
        return cap.diagnosis


def test_cupy_device_synchronize_is_named(device, lib):
    cp = pytest.importorskip("cupy")
    cp.cuda.Device(0).synchronize()

    def body(s):
        cp.cuda.Device(0).synchronize()  # CuPy: the foreign sync

    d = _explained_cupy(device, body)
    f = d.first
    assert f is not None and not d.ok, d.summary()
    assert f.kind == "sync" and f.call in ("cuCtxSynchronize", "cudaDeviceSynchronize"), (d.summary(), d.cupti)
    assert f.where.endswith(f"{THIS}:{line_of('# CuPy: the foreign sync')}, in body"), f.where
    assert "named by CUPTI" in f.detail and d.cupti["foreign"] >= 1


@pytest.mark.xfail(reason="seen on the H200 (2026-12-01, CuPy 14.2): CuPy's asnumpy inside the capture left it "
                          "ACTIVE and ended CUDA_SUCCESS with no call in the CUPTI window; which calls CuPy makes "
                          "there is not understood yet", strict=False)
def test_cupy_asnumpy_on_the_capturing_stream_is_named(device, lib):
    cp = pytest.importorskip("cupy")
    x = cp.arange(1024, dtype=cp.float32)
    cp.cuda.Device(0).synchronize()

    def body(s):
        with cp.cuda.ExternalStream(int(s.handle)):
            cp.asnumpy(x)  # CuPy: a copy to the host

    d = _explained_cupy(device, body)
    f = d.first
    assert f is not None, d.summary()
    assert f.kind in ("sync", "host_copy") and f.seen, (d.summary(), d.cupti)
    assert f.call in ("cuMemcpyDtoHAsync", "cuMemcpyDtoH", "cuStreamSynchronize", "cudaMemcpyAsync", "cudaMemcpy",
                      "cudaStreamSynchronize", "cuMemcpyAsync", "cuMemcpy"), (d.summary(), d.cupti)
    assert f.where.endswith(f"{THIS}:{line_of('# CuPy: a copy to the host')}, in body"), f.where


def test_cupy_allocating_inside_a_capture_is_named_as_an_allocation(device, lib):
    # CuPy's first array of a size is a cudaMalloc -> cuMemAlloc, which a thread-local capture refuses: the doctor
    # names it (seen on the H200: "an allocation inside the capture: cuMemAlloc() ->
    # CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" at the line below)
    cp = pytest.importorskip("cupy")
    cp.get_default_memory_pool().free_all_blocks()

    def body(s):
        cp.empty(3 << 20, dtype=cp.float32)  # CuPy: a fresh allocation

    d = _explained_cupy(device, body)
    f = d.first
    assert f is not None and not d.ok, d.summary()
    assert f.kind == "allocation" and f.call.startswith("cuMemAlloc"), (d.summary(), d.cupti)
    assert f.where.endswith(f"{THIS}:{line_of('# CuPy: a fresh allocation')}, in body"), f.where


@pytest.fixture(scope="module")
def cupti_gallery(device, lib, tmp_path_factory):
    from cugraphlab.core.cache import Cache
    from cugraphlab.experiment.doctor_gallery import CASES, FOREIGN_CASES, run_gallery

    return run_gallery(device, cases=CASES + FOREIGN_CASES, cupti=True,
                       cache=Cache(tmp_path_factory.mktemp("doctor-cupti-cache")))


def test_the_gallery_under_cupti_names_every_call(cupti_gallery):
    rows, table = cupti_gallery
    got = {r.case: (r.diagnosis.first.kind, r.diagnosis.first.call) if r.diagnosis and r.diagnosis.first else None
           for r in rows}
    assert [r.case for r in rows if not r.named or r.error] == [], got
    assert got["raw_sync"] == ("sync", "cuCtxSynchronize") and got["raw_legacy"] == ("legacy_stream",
                                                                                      "cuLaunchKernel")
    assert [(r.case, r.mode) for r in table if not r.restored or r.error] == []
    assert [r.mode for r in table if r.case == "clean" and r.diagnosis.findings] == []


def test_the_cupti_overhead_is_measured_for_capture_and_replay_alike(device, lib):
    """As test_doctor_gpu's: every variant sampled in full, finite and positive; the replay ratio with its interval
    is benchmarks/ratio_figures.py's."""
    from cugraphlab.bench.doctor import DoctorResult, measure_overhead

    with device.load_kernels(names=["empty"]) as ks:
        o = measure_overhead(device, ks, DoctorResult(), launches=32, samples=11, replays=100, cupti=True)
    for label in ("capture_plain", "capture_cupti", "replay_plain", "replay_cupti"):
        assert o[label]["n"] == 11 and o[label]["median"] > 0 and math.isfinite(o[label]["median"]), (label, o)
    assert math.isfinite(o["cupti_replay_ratio"]) and o["cupti_replay_ratio"] > 0, o
    assert o["cupti_replay_ratio"] == o["replay_cupti"]["median"] / o["replay_plain"]["median"]
