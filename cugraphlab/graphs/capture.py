"""Stream capture: work enqueued on a stream is recorded into a graph instead of run, and fork/join across streams.

    with capture(stream) as cap:      # cuStreamBeginCapture ... cuStreamEndCapture
        for launch in launches:
            launch()                  # recorded as kernel nodes, each after the one before
    graph = cap.graph

A second stream joins a capture by waiting on an event recorded on the capturing stream (fork), and hands its work
back the same way before the capture ends (join)::

    cuEventRecord(fork, A);  cuStreamWaitEvent(B, fork)    # B is now part of A's capture
    ... work on A ...        ... work on B ...              # no order between them: two branches
    cuEventRecord(join, B);  cuStreamWaitEvent(A, join)    # B's branch flows back into A

Nothing runs during capture; the events only draw edges. Ending the capture while B still has unjoined work fails
with CUDA_ERROR_STREAM_CAPTURE_UNJOINED. CUDA Driver API, "Stream Management" and "Graph Management".
"""
from __future__ import annotations

from ..core._calls import cu, driver_fn, driver_module
from ..core.errors import CaptureError, InvalidArgumentError, check
from .exec import Graph

__all__ = ["capture", "capture_launches", "fork", "join", "CAPTURE_MODES"]

CAPTURE_MODES = ("global", "thread_local", "relaxed")


class capture:
    """Context manager recording everything enqueued on ``stream`` into a Graph (``.graph`` after the block).

    ``mode`` is "global", "thread_local" (default) or "relaxed" (CUstreamCaptureMode). If the block raises, the
    capture is ended and the partial graph destroyed before the exception goes on; if the driver invalidated the
    capture, CaptureError says so. ``graph_class`` makes the owner of the captured handle (a Graph subclass taking
    ``(device, handle)``, e.g. graphs.memory.MemoryGraph).

    ``explain=True`` watches the capture with the capture doctor (graphs.doctor): the first call that invalidated
    it, its Python frame, the class of mistake and the fix end up in ``.diagnosis`` (and in the CaptureError's
    message). ``None`` (default) follows ``doctor.explaining()`` (the ``cugraphlab doctor`` command turns it on).
    It slows the capture only; the graph is the same. ``cupti=True`` (with cupti-python installed) adds the CUPTI
    mode (graphs.doctor.cupti): every driver and runtime call of the process is logged during the capture, so that a
    call made by CuPy, PyTorch or raw cuda.bindings is named too; it implies ``explain=True``. ``None`` follows
    ``doctor.explaining_with_cupti()`` (``cugraphlab doctor --cupti``).

    Parameters
    ----------
    stream : Stream
        The stream to capture (not the legacy default stream).
    mode : str, optional
        "thread_local" (default), "global" or "relaxed".
    graph_class : type, optional
        The owner of the captured graph, Graph by default.
    explain : bool or None, optional
        Watch the capture with the capture doctor; None follows ``doctor.explaining()``.
    cupti : bool or None, optional
        Add the CUPTI mode; None follows ``doctor.explaining_with_cupti()``.

    Raises
    ------
    InvalidArgumentError
        An unknown ``mode``, or ``cupti=True`` with ``explain=False``.
    CaptureError
        The driver invalidated the capture (with the doctor's diagnosis when it watched).
    CudaError
        cuStreamBeginCapture or cuStreamEndCapture failed.

    See Also
    --------
    cuStreamBeginCapture : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g767167da0bbf07157dc20b6c258a2143
    cuStreamEndCapture : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g03dab8b2ba76b00718955177a929970c
    """

    def __init__(self, stream, mode: str = "thread_local", graph_class=Graph, explain: bool | None = None,
                 cupti: bool | None = None):
        if mode not in CAPTURE_MODES:
            raise InvalidArgumentError(f"capture mode must be one of {', '.join(CAPTURE_MODES)}, got {mode!r}")
        modes = driver_module().CUstreamCaptureMode
        self.stream = stream
        self.mode_name = mode
        self.mode = getattr(modes, f"CU_STREAM_CAPTURE_MODE_{mode.upper()}")
        self.graph_class = graph_class
        self.graph: Graph | None = None
        self._kept: list = []
        self.diagnosis = None
        if cupti and explain is False:
            raise InvalidArgumentError("capture(cupti=True) explains the capture: drop explain=False")
        if explain is None:
            from .doctor import explaining

            explain = explaining() or bool(cupti)
        self._doctor = None
        if explain:
            from .doctor import Doctor, explaining_with_cupti

            self._doctor = Doctor(stream, mode, cupti=explaining_with_cupti() if cupti is None else cupti)

    def keep_alive(self, obj) -> None:
        """Hand ``obj`` to the graph made at the end of the capture (graphs.host: a captured host function).

        Parameters
        ----------
        obj : object
            Kept alive by the captured Graph, and by every executable made from it, until they are closed.
        """
        self._kept.append(obj)

    def __enter__(self) -> "capture":
        if self._doctor is not None:
            self._doctor.begin()
            return self
        cu("cuStreamBeginCapture", self.stream.handle, self.mode)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self._doctor is not None:
            return self._exit_explained(exc_type, exc)
        result = driver_fn("cuStreamEndCapture")(self.stream.handle)
        if exc_type is not None:
            if result[0] == 0 and result[1] is not None and int(result[1]):
                try:
                    cu("cuGraphDestroy", result[1])
                except Exception:
                    pass
            return False
        check(result, "cuStreamEndCapture")  # CaptureError when the driver invalidated the capture
        self._own_graph(result[1])
        return False

    def _own_graph(self, handle) -> None:
        """The captured handle's owner (``graph_class``), holding what was handed to ``keep_alive``."""
        self.graph = self.graph_class(self.stream.device, handle)
        for obj in self._kept:
            self.graph.keep_alive(obj)
        self._kept.clear()

    def _exit_explained(self, exc_type, exc) -> bool:
        """End the watched capture: the doctor looks at the forked streams before cuStreamEndCapture and at the
        result; a CaptureError carries the diagnosis in its message."""
        assert self._doctor is not None  # __exit__ comes here only when a doctor watches
        result, self.diagnosis = self._doctor.end(exc)
        ok = result[0] == 0 and result[1] is not None and int(result[1])
        if exc_type is not None or not ok:
            if ok:
                try:
                    cu("cuGraphDestroy", result[1])
                except Exception:
                    pass
            if exc_type is not None:
                if isinstance(exc, CaptureError):
                    _attach(exc, self.diagnosis)
                return False
            try:
                check(result, "cuStreamEndCapture")
            except CaptureError as e:
                _attach(e, self.diagnosis)
                raise
        self._own_graph(result[1])
        return False


def _attach(error: CaptureError, diagnosis) -> None:
    """Give a CaptureError the doctor's diagnosis (``.diagnosis``) and its summary in the message."""
    error.diagnosis = diagnosis
    if diagnosis.findings and error.args:
        error.args = (f"{error.args[0]}\n{diagnosis.summary()}", *error.args[1:])


def capture_launches(stream, launches, repeat: int = 1) -> Graph:
    """A new Graph (owned by the caller) holding ``launches`` ``repeat`` times, captured on ``stream`` in order.

    Parameters
    ----------
    stream : Stream
        The stream to capture on; the launches are replayed on it.
    launches : sequence of callable
        Called in order inside the capture (Launch objects, or any function enqueueing work on ``stream``).
    repeat : int, optional
        How many times the whole sequence is captured, 1 by default.

    Returns
    -------
    Graph
        Owned by the caller.

    Raises
    ------
    CaptureError
        The driver invalidated the capture (a launch on another stream, a synchronizing call, ...).
    CudaError
        A captured call or the capture itself failed.

    See Also
    --------
    cuStreamBeginCapture : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g767167da0bbf07157dc20b6c258a2143
    cuStreamEndCapture : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g03dab8b2ba76b00718955177a929970c
    """
    with capture(stream) as cap:
        for _ in range(repeat):
            for launch in launches:
                launch()
    assert cap.graph is not None  # a capture that ended without an error owns its graph
    return cap.graph


def fork(origin, other, event) -> None:
    """Bring stream ``other`` into ``origin``'s capture: record ``event`` on origin, make other wait for it.

    Parameters
    ----------
    origin : Stream
        The capturing stream.
    other : Stream
        A stream of the same context; its work after this joins the capture.
    event : Event
        Recorded on ``origin`` (a ``timing=False`` event is enough).

    Raises
    ------
    CudaError
        cuEventRecord or cuStreamWaitEvent failed.
    """
    event.record(origin)
    other.wait(event)


def join(origin, other, event) -> None:
    """Hand ``other``'s captured work back to ``origin``: record ``event`` on other, make origin wait for it.

    Every stream forked into a capture must be joined back before the capture ends (else CaptureError:
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED).

    Parameters
    ----------
    origin : Stream
        The capturing stream.
    other : Stream
        The forked stream.
    event : Event
        Recorded on ``other``.

    Raises
    ------
    CudaError
        cuEventRecord or cuStreamWaitEvent failed.
    """
    event.record(other)
    origin.wait(event)
