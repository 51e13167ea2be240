"""The capture doctor's CUPTI mode on a fake cupti module and the capture fake driver: subscribe, enable, unsubscribe
in order (also when the capture raises or cannot begin), the call outside cugraphlab named and classified with its
frame, calls through the door not blamed, the one-subscriber rule, and the one-line error without cupti-python."""
from __future__ import annotations

import gc
import pathlib
import sys
import threading

import pytest

from cugraphlab.core._calls import cu, observing
from cugraphlab.core.errors import CaptureError, UnsupportedError
from cugraphlab.graphs.capture import capture
from cugraphlab.graphs.doctor import cupti as doctor_cupti
from cugraphlab.graphs.doctor import explain_all, run_explained
from cugraphlab.graphs.doctor.cupti import CuptiBusyError, CuptiLibrary, normalize
from fake_cupti import CallbackDomain, CuptiCaptureDriver, FakeCupti
from fake_driver import patch_driver

THIS = pathlib.Path(__file__).name
DRIVER = int(CallbackDomain.DRIVER_API)
RUNTIME = int(CallbackDomain.RUNTIME_API)
IN_ORDER = [("subscribe",), ("enable_domain", 1, DRIVER), ("enable_domain", 1, RUNTIME), ("unsubscribe",)]


@pytest.fixture
def cupti(monkeypatch):
    fake = FakeCupti()
    monkeypatch.setattr(doctor_cupti, "_loaded", CuptiLibrary(fake, "/fake/libcupti.so.13", "test"))
    yield fake
    assert doctor_cupti._HUB.handle is None and doctor_cupti._HUB.watches == [], "a subscription was left"


@pytest.fixture
def drv(monkeypatch, cupti):
    fake = CuptiCaptureDriver(cupti)
    patch_driver(monkeypatch, fake)
    yield fake
    gc.collect()
    assert not observing(), "an observer was left registered"


@pytest.fixture
def dev(drv):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


@pytest.fixture
def kernel(dev):
    from cugraphlab.core.module import Module

    with Module(dev, b"fake image") as m:
        yield m.kernel("doctor_branch")


def launch(kernel, stream):
    cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, stream.handle, 0, 0)


def line_of(text: str) -> int:
    src = pathlib.Path(__file__).read_text().splitlines()
    return next(i + 1 for i, l in enumerate(src) if text in l)


def explained(stream, body, mode="thread_local", **kw):
    cap = capture(stream, mode=mode, explain=True, cupti=True, **kw)
    try:
        with cap:
            body()
    except CaptureError as e:
        return cap.diagnosis, e
    return cap.diagnosis, None


def test_a_foreign_sync_is_named_with_its_class_and_frame(dev, kernel, drv, cupti):
    s = dev.create_stream()

    def body():
        launch(kernel, s)
        drv.foreign("cuCtxSynchronize")  # foreign: the sync
        launch(kernel, s)

    d, err = explained(s, body)
    assert err is not None and not d.ok
    f = d.first
    assert (f.kind, f.call, f.result, f.seen) == ("sync", "cuCtxSynchronize",
                                                  "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", True)
    assert f.where.endswith(f"{THIS}:{line_of('# foreign: the sync')}, in body"), f.where
    assert "ACTIVE -> INVALIDATED" in f.status_change
    assert "named by CUPTI" in f.detail
    assert cupti.log == IN_ORDER
    # the log kept both door launches and the foreign call; only the foreign one counts
    assert d.cupti["foreign"] == 1 and d.cupti["calls"] >= 3 and d.cupti["library"].startswith("/fake/libcupti")
    assert "cuCtxSynchronize" in d.cupti["log"][0]


def test_without_cupti_the_same_call_stays_unseen(dev, kernel, drv):
    s = dev.create_stream()
    cap = capture(s, explain=True)
    with pytest.raises(CaptureError):
        with cap:
            launch(kernel, s)
            drv.foreign("cuCtxSynchronize")
    assert cap.diagnosis.first.kind == "foreign" and cap.diagnosis.first.call == "?"
    assert cap.diagnosis.cupti == {}


def test_a_legacy_stream_launch_is_named_from_its_params(dev, kernel, drv):
    s = dev.create_stream(non_blocking=False)
    d, _ = explained(s, lambda: drv.foreign("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0))
    f = d.first
    assert (f.kind, f.call, f.stream) == ("legacy_stream", "cuLaunchKernel", "0x0"), d.summary()


def test_a_runtime_call_is_judged_as_its_driver_counterpart(dev, kernel, drv):
    s = dev.create_stream()

    def body():
        launch(kernel, s)
        drv.foreign_invalidate(s)  # what cudaDeviceSynchronize does to the capture ...
        drv.runtime("cudaDeviceSynchronize_v3020", 900)  # ... and what CUPTI reports of it

    d, _ = explained(s, body)
    f = d.first
    assert (f.kind, f.call) == ("sync", "cudaDeviceSynchronize"), d.summary()
    assert "cudaError 900" in f.result and "judged as cuCtxSynchronize" in f.detail


def test_door_calls_are_never_blamed_and_a_clean_capture_has_no_finding(dev, kernel, drv, cupti):
    s = dev.create_stream()
    d, err = explained(s, lambda: [launch(kernel, s) for _ in range(3)])
    assert err is None and d.ok and d.findings == []
    assert d.cupti["calls"] >= 3 and d.cupti["foreign"] == 0, d.cupti["log"]
    assert cupti.log == IN_ORDER


def test_a_silent_foreign_host_copy_is_reported(dev, kernel, drv):
    s = dev.create_stream()

    def body():
        launch(kernel, s)
        drv.runtime("cuMemcpyHtoD_v2", 0)  # a foreign synchronous copy the driver accepted

    d, err = explained(s, body)
    assert err is None and d.ok
    assert [(f.kind, f.call) for f in d.findings] == [("host_copy", "cuMemcpyHtoD")]
    assert "NOT part of the graph" in d.findings[0].detail


def test_another_threads_foreign_refusal_names_the_thread(dev, kernel, drv):
    s = dev.create_stream()

    def loader():
        drv.foreign("cuMemAlloc", 1 << 20)  # refused: a global capture runs

    def body():
        launch(kernel, s)
        t = threading.Thread(target=loader, name="loader")
        t.start()
        t.join()

    d, _ = explained(s, body, mode="global")
    f = d.first
    assert (f.kind, f.call, f.thread) == ("query_or_thread", "cuMemAlloc", "loader"), d.summary()
    assert "not the capturing thread" in f.detail


def test_unsubscribed_when_the_body_raises(dev, kernel, drv, cupti):
    s = dev.create_stream()
    with pytest.raises(ZeroDivisionError):
        with capture(s, explain=True, cupti=True):
            launch(kernel, s)
            1 / 0
    assert cupti.log == IN_ORDER and not cupti.subscribed


def test_unsubscribed_when_the_capture_cannot_begin(dev, drv, cupti):
    s = dev.create_stream()
    drv.captures[int(s.handle)] = object()  # the fake refuses a second begin on a capturing stream
    with pytest.raises(Exception):
        with capture(s, explain=True, cupti=True):
            pass
    del drv.captures[int(s.handle)]
    assert cupti.log == IN_ORDER and not cupti.subscribed


def test_enable_failure_unsubscribes_and_is_one_line(dev, drv, cupti):
    cupti.fail_enable = True
    s = dev.create_stream()
    with pytest.raises(UnsupportedError, match="cuptiEnableDomain failed: ERROR_INVALID_PARAMETER"):
        with capture(s, explain=True, cupti=True):
            pass
    assert cupti.log == [("subscribe",), ("enable_domain", 1, DRIVER), ("unsubscribe",)]
    assert drv.captures == {}  # never begun


def test_a_profiler_already_subscribed_is_a_typed_error(dev, drv, cupti):
    cupti.busy_holder = "nsys"
    s = dev.create_stream()
    with pytest.raises(CuptiBusyError, match="'nsys'") as e:
        with capture(s, explain=True, cupti=True):
            pass
    assert isinstance(e.value, UnsupportedError) and e.value.holder == "nsys"
    assert "\n" not in str(e.value)
    assert drv.captures == {} and cupti.log == [("subscribe",)]


def test_nested_captures_share_one_subscription(dev, kernel, drv, cupti):
    a, b = dev.create_stream(), dev.create_stream()
    with capture(a, explain=True, cupti=True):
        launch(kernel, a)
        with capture(b, explain=True, cupti=True):
            launch(kernel, b)
        assert cupti.subscribed
    assert cupti.log == IN_ORDER


def test_explain_all_with_cupti_reaches_captures_made_without_arguments(tmp_path, dev, kernel, drv, cupti):
    s = dev.create_stream()
    with explain_all(cupti=True) as diagnoses:
        with pytest.raises(CaptureError):
            with capture(s):
                launch(kernel, s)
                drv.foreign("cuCtxSynchronize")
    assert [(d.first.kind, d.first.call) for d in diagnoses] == [("sync", "cuCtxSynchronize")]


def test_run_explained_passes_cupti_on(tmp_path, dev, drv, cupti, monkeypatch):
    script = tmp_path / "s.py"
    script.write_text("import sys\nsys.exit(0)\n")
    code, diagnoses = run_explained(str(script), cupti=True)
    assert code == 0 and diagnoses == []


def test_without_cupti_python_one_line_unsupported(monkeypatch, dev):
    monkeypatch.setattr(doctor_cupti, "_loaded", None)
    monkeypatch.setitem(sys.modules, "cupti", None)
    s = dev.create_stream()
    with pytest.raises(UnsupportedError) as e:
        capture(s, explain=True, cupti=True)
    assert str(e.value) == "cupti-python is not installed: pip install cupti-python"
    with pytest.raises(UnsupportedError):
        with explain_all(cupti=True):
            pass


def test_cupti_with_explain_false_is_bad_input(dev):
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError):
        capture(dev.create_stream(), explain=False, cupti=True)


def test_names_and_codes():
    from cuda.bindings import driver

    assert normalize("cuMemcpyDtoH_v2") == "cuMemcpyDtoH"
    assert normalize("cudaDeviceSynchronize_v3020") == "cudaDeviceSynchronize"
    assert normalize("cuLaunchKernel_ptsz") == "cuLaunchKernel"
    assert normalize("cuMemcpyHtoDAsync_v2_ptsz") == "cuMemcpyHtoDAsync"
    assert doctor_cupti._params_class_name("cuMemcpyHtoDAsync_v2") == "CuMemcpyHtoDAsyncV2Params"
    assert doctor_cupti._params_class_name("cuEventRecord_ptsz") == "CuEventRecordPtszParams"
    for number, name in doctor_cupti.CODE_NAMES.items():  # the table agrees with the bindings' CUresult
        assert driver.CUresult(number).name == name


def test_user_frame_skips_library_frames():
    ns: dict = {}
    # a function whose frames say they are cugraphlab's own (its file is doctor_cupti.py); its caller is this test
    exec(compile("import sys\ndef f(uf):\n    return uf(sys._getframe(0))\n", doctor_cupti.__file__, "exec"), ns)
    file, line, func = ns["f"](doctor_cupti.user_frame)  # the call site
    assert (pathlib.Path(file).name, line, func) == (THIS, line_of("# the call site"),
                                                     "test_user_frame_skips_library_frames")


def test_a_refused_named_subscription_falls_back_to_the_plain_one(dev, kernel, drv, cupti, monkeypatch):
    # what the H200 answered (cupti-python 13.4, CUPTI of CUDA 13.0): cuptiSubscribe_v2 -> INVALID_PARAMETER
    import fake_cupti

    def refuse(callback, userdata, p_params):
        cupti.log.append(("subscribe_v2 refused",))
        raise fake_cupti.cuptiError(fake_cupti.Result.ERROR_INVALID_PARAMETER)

    def plain(callback, userdata):
        cupti.log.append(("subscribe",))
        cupti.callback, cupti.handle = callback, 0x7777
        return cupti.handle

    monkeypatch.setattr(cupti, "subscribe_v2", refuse, raising=False)
    monkeypatch.setattr(cupti, "subscribe", plain, raising=False)
    s = dev.create_stream()

    def body():
        launch(kernel, s)
        drv.foreign("cuCtxSynchronize")
        launch(kernel, s)

    d, err = explained(s, body)
    assert err is not None and d.first.call == "cuCtxSynchronize" and d.first.kind == "sync"
    assert cupti.log[:2] == [("subscribe_v2 refused",), ("subscribe",)] and ("unsubscribe",) in cupti.log
