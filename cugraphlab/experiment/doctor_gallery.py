"""The capture doctor's gallery: each class of capture mistake made on purpose on a real GPU, with the diagnosis.

Every case captures on fresh streams with ``capture(stream, mode, explain=True)`` and makes one mistake (or none,
for the clean case). After each case the gallery proves that the library left nothing behind: no stream of the case
is still capturing (cuStreamIsCapturing), the context still works (an empty kernel launched and synchronized), and
the device's free memory is back where it was (cuMemGetInfo, within ``MEMORY_TOLERANCE``). Running each case under
GLOBAL, THREAD_LOCAL and RELAXED gives the table of which mode refuses which call. No timer here (bench.doctor
times the doctor's overhead).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..core._calls import cu, driver_module
from ..core.errors import CudaError
from ..graphs.capture import CAPTURE_MODES, capture, fork, join
from ..graphs.doctor import Diagnosis, treat_as_user_code

__all__ = ["GalleryCase", "CaseResult", "CASES", "FOREIGN_CASES", "Gallery", "run_gallery", "MEMORY_TOLERANCE", "BRANCH_SOURCE"]

treat_as_user_code(__file__)  # the cases are the "user code" the doctor must point at

MEMORY_TOLERANCE = 4 << 20  # bytes of free device memory a case may differ by (driver bookkeeping)
BIG = 16 << 20  # float32 elements (64 MiB): an allocation that leaked would show far beyond the tolerance
#: The outcome of a call the driver accepted but the doctor flags (a synchronous copy runs at once, outside the graph).
RAN_NOT_CAPTURED = "ran, not captured"
BRANCH_SOURCE = 'extern "C" __global__ void doctor_branch() {}\n'


@dataclass(frozen=True)
class GalleryCase:
    """One mistake: its key, a title, the mode it teaches in, the class and call the doctor must name."""

    key: str
    title: str
    teach_mode: str
    kind: str | None
    call: str | None
    run: Callable
    cupti_kind: str | None = None  # what the CUPTI mode must name instead (a call made past cugraphlab's door)
    cupti_call: str | None = None

    def expected(self, cupti: bool) -> tuple[str | None, str | None]:
        """(class, call) the doctor must name, with or without the CUPTI mode."""
        if cupti and self.cupti_kind is not None:
            return self.cupti_kind, self.cupti_call
        return self.kind, self.call


@dataclass
class CaseResult:
    """One case in one mode: the diagnosis and the state checks after it."""

    case: str
    mode: str
    diagnosis: Diagnosis | None
    expected_kind: str | None
    expected_call: str | None
    still_capturing: list[str] = field(default_factory=list)
    context_usable: bool = True
    memory_delta: int = 0
    error: str = ""

    @property
    def named(self) -> bool:
        """The doctor named the expected class and call (or, for the clean case, found nothing)."""
        d = self.diagnosis
        if d is None:
            return False
        if self.expected_kind is None:
            return d.findings == []
        f = d.first
        return f is not None and f.kind == self.expected_kind and f.call == self.expected_call

    @property
    def restored(self) -> bool:
        return not self.still_capturing and self.context_usable and abs(self.memory_delta) <= MEMORY_TOLERANCE

    @property
    def outcome(self) -> str:
        """What this mode did with the case's call: "refused: CODE", "allowed", "ran, not captured" (the driver
        accepted a call the doctor flags, such as a synchronous copy: it ran at once and is no node of the graph), or
        the end's code."""
        d = self.diagnosis
        if d is None:
            return f"error: {self.error}"
        f = d.first
        if f is None:
            return "allowed" if d.ok else d.end_result.replace("CUDA_ERROR_", "")
        code = (f.result or d.end_result).split(" ")[0].replace("CUDA_ERROR_", "").replace("STREAM_CAPTURE_", "")
        if code == "CUDA_SUCCESS":
            return RAN_NOT_CAPTURED
        return f"refused: {code}" if f.call == self.expected_call or f.kind == self.expected_kind else \
            f"{f.call} {code}"

    def to_dict(self) -> dict:
        return {"case": self.case, "mode": self.mode, "expected_kind": self.expected_kind,
                "expected_call": self.expected_call, "named": self.named, "restored": self.restored,
                "outcome": self.outcome, "still_capturing": self.still_capturing,
                "context_usable": self.context_usable, "memory_delta": self.memory_delta, "error": self.error,
                "diagnosis": self.diagnosis.to_dict() if self.diagnosis else None}


class _Scratch:
    """What one case makes (streams, events, arrays), closed after it; its streams are checked first."""

    def __init__(self, device):
        self.device, self.streams, self.things = device, [], []

    def stream(self, non_blocking: bool = True):
        s = self.device.create_stream(non_blocking)
        self.streams.append(s)
        return s

    def event(self):
        return self.keep(self.device.create_event(False))

    def keep(self, thing):
        self.things.append(thing)
        return thing

    def close(self) -> list[str]:
        d = driver_module()
        capturing = []
        for s in self.streams:
            r = d.cuStreamIsCapturing(s.handle)
            if r[0] != 0 or not getattr(r[1], "name", "").endswith("NONE"):
                capturing.append(f"{hex(int(s.handle))}: {getattr(r[1], 'name', r[0])}")
        for t in reversed(self.things):
            t.close()
        for s in self.streams:
            s.close()
        return capturing


def _explained(stream, mode, body, graphs: list, cupti: bool = False) -> Diagnosis:
    cap = capture(stream, mode=mode, explain=True, cupti=cupti)
    try:
        with cap:
            body()
    except CudaError:
        pass
    if cap.graph is not None:
        graphs.append(cap.graph)
    return cap.diagnosis


def _launch_empty(g: "Gallery", stream) -> None:
    g.kernels["empty"].prepare((), (), ((1,), (1,)), stream)()


# --- the cases: each makes its mistake on the line the doctor must name -------------------------------------------
def case_sync(g, sc, mode, graphs):
    s = sc.stream()

    def body():
        _launch_empty(g, s)
        s.synchronize()  # mistake: wait on the host for a stream that is only recording
    return _explained(s, mode, body, graphs, g.cupti)


def case_legacy(g, sc, mode, graphs):
    s = sc.stream(non_blocking=False)  # a blocking stream: the legacy stream is tied to it
    legacy = driver_module().CUstream(0)

    def body():
        _launch_empty(g, s)
        cu("cuLaunchKernel", g.kernels["empty"].handle, 1, 1, 1, 1, 1, 1, 0, legacy, 0, 0)  # mistake: stream 0
    return _explained(s, mode, body, graphs, g.cupti)


def case_host_copy(g, sc, mode, graphs):
    s = sc.stream()
    arr = sc.keep(g.device.array(1024))
    host = np.random.default_rng().random(1024, dtype=np.float32)  # pageable NumPy memory

    def body():
        _launch_empty(g, s)
        cu("cuMemcpyHtoD", arr.handle, host.ctypes.data, host.nbytes)  # mistake: a synchronous copy
    return _explained(s, mode, body, graphs, g.cupti)


def case_allocation(g, sc, mode, graphs):
    s = sc.stream()

    def body():
        _launch_empty(g, s)
        sc.keep(g.device.array(BIG))  # mistake: cuMemAlloc while capturing
    return _explained(s, mode, body, graphs, g.cupti)


def case_event_query(g, sc, mode, graphs):
    s, other = sc.stream(), sc.stream()
    ev = sc.event()
    ev.record(other)
    other.synchronize()

    def body():
        _launch_empty(g, s)
        cu("cuEventQuery", ev.handle)  # mistake: a query while a strict capture runs
    return _explained(s, mode, body, graphs, g.cupti)


def case_other_thread(g, sc, mode, graphs):
    s = sc.stream()
    box: list = []

    def loader():
        try:
            g.device.make_current()
            box.append(sc.keep(g.device.array(BIG)))  # mistake: another thread allocates during a global capture
        except CudaError as e:
            box.append(e)

    def body():
        _launch_empty(g, s)
        t = threading.Thread(target=loader, name="loader")
        t.start()
        t.join()
    return _explained(s, mode, body, graphs, g.cupti)


def case_unjoined(g, sc, mode, graphs):
    s, b = sc.stream(), sc.stream()
    ev = sc.event()
    branch = g.kernels["doctor_branch"].prepare((), (), ((1,), (1,)), b)

    def body():
        _launch_empty(g, s)
        fork(s, b, ev)
        branch()  # mistake: this branch never flows back into s
    return _explained(s, mode, body, graphs, g.cupti)


def case_isolation(g, sc, mode, graphs):
    s1, s2 = sc.stream(), sc.stream()
    ev = sc.event()
    inner: list = []

    def outer():
        _launch_empty(g, s1)
        ev.record(s1)  # recorded in capture 1

        def body():
            _launch_empty(g, s2)
            s2.wait(ev)  # mistake: capture 2 waits on an event of capture 1
        inner.append(_explained(s2, mode, body, graphs, g.cupti))
    _explained(s1, mode, outer, graphs, g.cupti)
    return inner[0]


def case_clean(g, sc, mode, graphs):
    s, b = sc.stream(), sc.stream()
    e1, e2 = sc.event(), sc.event()
    branch = g.kernels["doctor_branch"].prepare((), (), ((1,), (1,)), b)

    def body():
        _launch_empty(g, s)
        fork(s, b, e1)
        branch()
        _launch_empty(g, s)
        join(s, b, e2)
    d = _explained(s, mode, body, graphs, g.cupti)
    if graphs:  # the graph is real: instantiate, launch, wait
        with graphs[-1].instantiate() as exe:
            exe.launch(s)
            s.synchronize()
    return d


def case_raw_sync(g, sc, mode, graphs):
    s = sc.stream()

    def body():
        _launch_empty(g, s)
        driver_module().cuCtxSynchronize()  # mistake, past cugraphlab's door (as CuPy or PyTorch would)
    return _explained(s, mode, body, graphs, g.cupti)


def case_raw_legacy(g, sc, mode, graphs):
    s = sc.stream(non_blocking=False)
    d = driver_module()

    def body():
        _launch_empty(g, s)
        d.cuLaunchKernel(g.kernels["empty"].handle, 1, 1, 1, 1, 1, 1, 0, d.CUstream(0), 0, 0)  # mistake, raw
    return _explained(s, mode, body, graphs, g.cupti)


CASES: tuple[GalleryCase, ...] = (
    GalleryCase("sync", "cuStreamSynchronize inside the capture", "thread_local", "sync", "cuStreamSynchronize",
                case_sync),
    GalleryCase("legacy_stream", "a launch on the legacy stream while a blocking stream captures", "thread_local",
                "legacy_stream", "cuLaunchKernel", case_legacy),
    GalleryCase("host_copy", "cuMemcpyHtoD (synchronous, pageable) inside the capture", "thread_local", "host_copy",
                "cuMemcpyHtoD", case_host_copy),
    GalleryCase("allocation", "cuMemAlloc inside the capture", "thread_local", "allocation", "cuMemAlloc",
                case_allocation),
    GalleryCase("event_query", "cuEventQuery during a global capture", "global", "query_or_thread", "cuEventQuery",
                case_event_query),
    GalleryCase("other_thread", "another thread's cuMemAlloc during a global capture", "global", "query_or_thread",
                "cuMemAlloc", case_other_thread),
    GalleryCase("unjoined", "a fork never joined", "thread_local", "unjoined", "cuStreamEndCapture", case_unjoined),
    GalleryCase("isolation", "waiting on an event recorded in another capture", "thread_local", "isolation",
                "cuStreamWaitEvent", case_isolation),
    GalleryCase("clean", "a correct fork/join capture", "thread_local", None, None, case_clean),
)

#: Mistakes made past cugraphlab's door (raw cuda.bindings calls, as CuPy or PyTorch make them): the plain doctor
#: sees only the state change ("foreign", call "?"); the CUPTI mode names the call itself.
FOREIGN_CASES: tuple[GalleryCase, ...] = (
    GalleryCase("raw_sync", "a raw cuCtxSynchronize (not through cugraphlab) inside the capture", "thread_local",
                "foreign", "?", case_raw_sync, "sync", "cuCtxSynchronize"),
    GalleryCase("raw_legacy", "a raw launch on the legacy stream while a blocking stream captures", "thread_local",
                "foreign", "?", case_raw_legacy, "legacy_stream", "cuLaunchKernel"),
)


class Gallery:
    """The kernels (empty, doctor_branch) and a check stream on ``device``; ``run(case, mode)`` runs one case."""

    def __init__(self, device, cache=None, cupti: bool = False):
        self.device = device
        self.cupti = cupti
        self.kernels = device.load_kernels(names=["empty"], extra_sources={"doctor_branch": BRANCH_SOURCE},
                                           cache=cache)
        self.check_stream = device.create_stream()

    def close(self) -> None:
        self.check_stream.close()
        self.kernels.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _usable(self) -> bool:
        try:
            _launch_empty(self, self.check_stream)
            self.check_stream.synchronize()
            return True
        except Exception:
            return False

    def run(self, case: GalleryCase, mode: str) -> CaseResult:
        self.device.synchronize()
        free_before = self.device.memory_info()[0]
        sc, graphs = _Scratch(self.device), []
        diagnosis, error = None, ""
        try:
            diagnosis = case.run(self, sc, mode, graphs)
        except Exception as e:  # the case itself went wrong: report, keep going
            error = f"{type(e).__name__}: {e}"
        finally:
            for gr in graphs:
                gr.close()
            capturing = sc.close()
        usable = self._usable()
        self.device.synchronize()
        delta = self.device.memory_info()[0] - free_before
        kind, call = case.expected(self.cupti)
        return CaseResult(case.key, mode, diagnosis, kind, call, capturing, usable, delta, error)


def run_gallery(device, modes=CAPTURE_MODES, cases=CASES, cache=None,
                cupti: bool = False) -> tuple[list[CaseResult], list[CaseResult]]:
    """Every case in its teaching mode (the gallery), then every case in every mode (the modes table); with
    ``cupti`` every capture in the CUPTI mode (graphs.doctor.cupti; UnsupportedError without cupti-python).

    Returns (gallery rows, table rows). A warm-up clean capture first, so that the driver's one-time allocations
    do not count as a leak of the first case."""
    if cupti:
        from ..graphs.doctor.cupti import cupti_library

        cupti_library()  # the one-line error before any GPU work
    with Gallery(device, cache, cupti) as g:
        g.run(CASES[-1], "thread_local")
        gallery = [g.run(c, c.teach_mode) for c in cases]
        table = [g.run(c, m) for c in cases for m in modes]
    return gallery, table
