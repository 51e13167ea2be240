"""The capture doctor on a driver that captures (tests/helpers/capture_driver): the culprit's call, class, frame and
state change; unseen calls; unjoined forks with their dangling node; no finding for a clean capture."""
from __future__ import annotations

import gc
import pathlib
import threading

import pytest

from capture_driver import CaptureFakeDriver
from cugraphlab.core._calls import cu, observing
from cugraphlab.core.errors import CaptureError
from cugraphlab.graphs.capture import capture, fork, join
from cugraphlab.graphs.doctor import Doctor, classify, explain_all, explaining
from fake_driver import patch_driver

THIS = pathlib.Path(__file__).name


@pytest.fixture
def drv(monkeypatch):
    fake = CaptureFakeDriver()
    patch_driver(monkeypatch, fake)
    yield fake
    # Objects a test dropped are released now, by this fake: collected later, under another test's fake, their
    # release would fail and the error path would load the real driver library from inside a finalizer.
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
    """A launch made through the door (seen by the doctor)."""
    cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, stream.handle, 0, 0)


def line_of(text: str) -> int:
    src = pathlib.Path(__file__).read_text().splitlines()
    return next(i + 1 for i, l in enumerate(src) if text in l)


def explained(stream, body, mode="thread_local"):
    cap = capture(stream, mode=mode, explain=True)
    try:
        with cap:
            body()
    except CaptureError as e:
        return cap.diagnosis, e
    return cap.diagnosis, None


def test_a_clean_fork_join_capture_has_no_findings(dev, kernel, drv):
    a, b, e1, e2 = dev.create_stream(), dev.create_stream(), dev.create_event(False), dev.create_event(False)

    def body():
        launch(kernel, a)
        fork(a, b, e1)
        launch(kernel, b)
        launch(kernel, a)
        join(a, b, e2)

    d, err = explained(a, body)
    assert err is None and d.ok and d.findings == []
    assert d.calls_seen >= 7
    assert set(d.open_dependencies) == {hex(int(a.handle)), hex(int(b.handle))}
    assert drv.captures == {}


def test_sync_inside_capture_names_the_call_the_users_line_and_the_state_change(dev, kernel):
    s = dev.create_stream()

    def body():
        launch(kernel, s)
        s.synchronize()  # the mistake
        launch(kernel, s)

    d, err = explained(s, body)
    assert err is not None and not d.ok
    f = d.first
    assert (f.kind, f.call, f.result) == ("sync", "cuStreamSynchronize", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")
    assert f.where.endswith(f"{THIS}:{line_of('s.synchronize()  # the mistake')}, in body")
    assert "ACTIVE -> INVALIDATED" in f.status_change
    assert "cugraphlab" not in f.where.split(":")[0].replace(THIS, "")
    assert d.end_result == "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
    assert "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" in str(err) and "synchronizing" in str(err)


def test_only_the_first_culprit_counts_later_refusals_are_listed(dev, kernel):
    s = dev.create_stream()

    def body():
        try:
            s.synchronize()
        except CaptureError:
            pass
        launch(kernel, s)  # answers INVALIDATED: a consequence, not a culprit

    d, err = explained(s, body)
    assert [f.call for f in d.findings] == ["cuStreamSynchronize"]
    assert any("INVALIDATED" in x for x in d.later)


@pytest.mark.parametrize("mode, refused", [("global", True), ("thread_local", True), ("relaxed", False)])
def test_allocation_is_refused_by_mode(dev, mode, refused):
    s = dev.create_stream()
    arrays = []
    d, err = explained(s, lambda: arrays.append(dev.array(1024)), mode)
    for a in arrays:
        a.close()
    if refused:
        assert (d.first.kind, d.first.call) == ("allocation", "cuMemAlloc")
    else:
        assert d.findings == [] and d.ok


def test_legacy_stream_launch_while_a_blocking_stream_captures(dev, kernel, drv):
    s = dev.create_stream(non_blocking=False)
    legacy = drv.CUstream(0)
    d, err = explained(s, lambda: cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, legacy, 0, 0))
    assert (d.first.kind, d.first.call, d.first.result) == (
        "legacy_stream", "cuLaunchKernel", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT")


def test_synchronous_host_copy(dev):
    import numpy as np

    s = dev.create_stream()
    host = np.ones(16, np.float32)
    with dev.array(16) as arr:
        d, _ = explained(s, lambda: cu("cuMemcpyHtoD", arr.handle, host.ctypes.data, host.nbytes))
    assert (d.first.kind, d.first.call) == ("host_copy", "cuMemcpyHtoD")


def test_event_query_in_global_mode(dev):
    s, other = dev.create_stream(), dev.create_stream()
    ev = dev.create_event(False)
    ev.record(other)
    d, _ = explained(s, lambda: cu("cuEventQuery", ev.handle), "global")
    assert (d.first.kind, d.first.call) == ("query_or_thread", "cuEventQuery")


def test_another_threads_allocation_in_global_mode(dev):
    s = dev.create_stream()
    box = {}

    def other_thread():
        try:
            box["array"] = dev.array(1024)
        except Exception as e:
            box["error"] = e

    def body():
        t = threading.Thread(target=other_thread, name="loader")
        t.start()
        t.join()

    d, err = explained(s, body, "global")
    assert "error" in box
    f = d.first
    assert (f.kind, f.call, f.thread) == ("query_or_thread", "cuMemAlloc", "loader")
    line = line_of('box["array"] = dev.array(1024)')
    assert f"{THIS}:{line}" in f.where
    assert "ACTIVE -> INVALIDATED" in f.status_change


def test_another_threads_allocation_in_thread_local_mode_is_fine(dev):
    s = dev.create_stream()
    box = {}
    t = None

    def body():
        nonlocal t
        t = threading.Thread(target=lambda: box.setdefault("a", dev.array(8)))
        t.start()
        t.join()

    d, err = explained(s, body, "thread_local")
    box["a"].close()
    assert d.findings == [] and d.ok


def test_fork_never_joined_names_the_stream_and_the_dangling_kernel(dev, kernel):
    a, b, e = dev.create_stream(), dev.create_stream(), dev.create_event(False)

    def body():
        launch(kernel, a)
        fork(a, b, e)
        launch(kernel, b)  # never joined back

    d, err = explained(a, body)
    assert err is not None and d.end_result == "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"
    f = d.first
    assert f.kind == "unjoined" and f.stream == hex(int(b.handle))
    assert "KERNEL:doctor_branch" in f.detail
    assert d.open_dependencies[hex(int(b.handle))] == ["KERNEL:doctor_branch"]


def test_waiting_on_an_event_of_another_capture(dev, kernel):
    s1, s2, e = dev.create_stream(), dev.create_stream(), dev.create_event(False)
    inner = {}

    def outer_body():
        launch(kernel, s1)
        e.record(s1)
        inner["d"], inner["err"] = explained(s2, lambda: (launch(kernel, s2), s2.wait(e)))

    d_outer, _ = explained(s1, outer_body)
    d = inner["d"]
    f = d.first
    assert (f.kind, f.call, f.result) == ("isolation", "cuStreamWaitEvent", "CUDA_ERROR_STREAM_CAPTURE_MERGE")
    assert "another capture" in f.detail
    assert d_outer.ok  # the event's own capture was not hurt


def test_a_call_outside_cugraphlab_is_bounded_by_the_frames_around_it(dev, kernel, drv):
    s = dev.create_stream()

    def body():
        cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, s.handle, 0, 0)  # seen, fine
        drv.foreign_invalidate(s)  # CuPy or PyTorch syncing, say
        cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, s.handle, 0, 0)  # seen: answers INVALIDATED

    d, err = explained(s, body)
    f = d.first
    assert f.kind == "foreign" and not f.seen
    assert f"{THIS}:{line_of('# seen, fine')}" in f.where
    assert f"{THIS}:{line_of('# seen: answers INVALIDATED')}" in f.where


def test_an_unseen_call_noticed_only_at_the_end(dev, kernel, drv):
    s = dev.create_stream()
    d, err = explained(s, lambda: drv.foreign_invalidate(s))
    assert d.first.kind == "foreign" and "end of the capture" in d.first.status_change


def test_a_launch_prepared_before_the_capture_is_named_by_its_error(dev, kernel, drv):
    s = dev.create_stream(non_blocking=False)

    class Legacy:  # a Stream-like handle for the legacy stream
        handle = drv.CUstream(0)

    early = kernel.prepare((), (), ((1,), (1,)), Legacy())  # looked up before: not watched

    d, err = explained(s, early)
    assert (d.first.kind, d.first.call) == ("legacy_stream", "cuLaunchKernel")
    assert f"{THIS}:" in d.first.where


def test_explain_all_turns_every_capture_into_an_explained_one(dev, kernel):
    s = dev.create_stream()
    assert not explaining()
    with explain_all() as diagnoses:
        assert explaining()
        with capture(s) as cap:
            launch(kernel, s)
        cap.graph.close()
    assert not explaining()
    assert len(diagnoses) == 1 and diagnoses[0].ok and diagnoses[0].findings == []


def test_an_unexplained_capture_is_unchanged(dev, kernel, drv):
    s = dev.create_stream()
    with capture(s) as cap:
        assert not observing()
        launch(kernel, s)
    assert cap.diagnosis is None
    cap.graph.close()


def test_classification_table():
    assert classify("cuCtxSynchronize", (), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED") == "sync"
    assert classify("cuEventSynchronize", (), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED") == "sync"
    assert classify("cuMemcpyDtoH", (), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED") == "host_copy"
    assert classify("cuMemcpyHtoDAsync", (1, 2, 3, 7), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", pageable=True) == \
        "host_copy"
    assert classify("cuMemAlloc", (4,), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED") == "allocation"
    assert classify("cuMemAlloc", (4,), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", other_thread=True) == \
        "query_or_thread"
    assert classify("cuStreamQuery", (5,), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED") == "query_or_thread"
    assert classify("cuStreamWaitEvent", (5, 6, 0), "CUDA_ERROR_STREAM_CAPTURE_ISOLATION") == "isolation"
    assert classify("cuMemsetD32Async", (1, 2, 3, 0), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT") == "legacy_stream"
    assert classify("cuStreamEndCapture", (), "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD") == "wrong_thread"
    assert classify("cuGraphLaunch", (1, 9), "CUDA_ERROR_NOT_PERMITTED") == "other"


def test_the_doctor_can_watch_a_capture_directly(dev, kernel):
    s = dev.create_stream()
    doc = Doctor(s, "relaxed")
    doc.begin()
    launch(kernel, s)
    result, d = doc.end()
    assert d.ok and d.mode == "relaxed" and d.calls_seen == 1
    cu("cuGraphDestroy", result[1])
