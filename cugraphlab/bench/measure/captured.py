"""The graph ways of ``measure``: the work captured through the capture doctor (``graphs.capture(...,
explain=True)``), or a graph given, replayed with cuGraphLaunch from Python, from C behind a builtin
(``NativeGraphLaunch``) and in a C loop.

A capture that fails gives a ``Way`` with no ``run`` and the doctor's diagnosis (which call broke it, from which
line, the fix). A callable whose captured call holds no node did not enqueue on the stream it was given:
``StreamIgnoredError``. Capture, instantiate and upload are timed ``CAPTURE_COST_REPEATS`` times, without the doctor
(it slows the capture, not the graph).
"""
from __future__ import annotations

import time
from typing import Callable

from .way import CAPTURE_COST_REPEATS, WAYS, StreamIgnoredError, Way, repeat_calls, unavailable

__all__ = ["explained_capture", "stack_hint", "capture_way", "ready_exec_timed", "graph_way", "native_graph_way",
           "floor_graph_way"]


def ready_exec_timed(graph, stream, costs: dict):
    t0 = time.perf_counter_ns()
    exe = graph.instantiate()
    t1 = time.perf_counter_ns()
    try:
        exe.upload(stream)
    except BaseException:
        exe.close()
        raise
    t2 = time.perf_counter_ns()
    costs.setdefault("instantiate_us", []).append((t1 - t0) / 1e3)
    costs.setdefault("upload_us", []).append((t2 - t1) / 1e3)
    return exe


def graph_way(exe, stream, costs: dict, what: str = WAYS["graph"]) -> Way:
    from ..native.loops import graph_bindings_loop

    return Way("graph", what, graph_bindings_loop(exe, stream), costs=costs, close=exe.close)


def stack_hint(exc: BaseException) -> tuple[str, str, str, str] | None:
    """For an exception a library raised inside the user's work during the capture (CuPy's ``.get()`` or
    ``cupy.asnumpy``, PyTorch's ``.item()``, ...): (the call, the class of mistake, the fix in that library's
    terms, where: "file:line in function"), read from the user's line that raised (``graphs.doctor.stacks``:
    the same table the doctor uses for the captures those libraries make); None when no line of the user's is
    in the traceback or the line names nothing known."""
    import linecache

    from ...graphs.doctor.frames import _stack_of_exception, _text, is_user_file
    from ...graphs.doctor.stacks import classify_line, code_of

    tb, site = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            site = tb
        tb = tb.tb_next
    if site is None:
        return None
    filename, lineno = site.tb_frame.f_code.co_filename, site.tb_lineno
    source = linecache.getline(filename, lineno).strip()
    if not source:
        return None
    text = _text(exc)
    call, kind, fix = classify_line(source, code_of(text, exc), _stack_of_exception(exc, source), text)
    if not fix:
        return None
    where = f"{filename.rsplit('/', 1)[-1]}:{lineno} in {site.tb_frame.f_code.co_name}"
    return call, kind, fix, where


def explained_capture(stream, call_once: Callable[[], None], *, mode: str = "thread_local",
                      callable_work: bool = False) -> Way | None:
    """One call captured through the capture doctor: None when it captured, or a graph Way without ``run``
    carrying the doctor's diagnosis. For a callable, a capture holding no node raises StreamIgnoredError."""
    from ...graphs.capture import capture

    cap = capture(stream, mode=mode, explain=True)
    try:
        with cap:
            call_once()
    except Exception as e:
        diagnosis = getattr(e, "diagnosis", None) or cap.diagnosis
        first = diagnosis.first if diagnosis is not None else None
        hint = stack_hint(e)
        if first is not None and hint is not None and not first.fix_hint and (not first.seen or first.kind in
                                                                               ("foreign", "other")):
            first.fix_hint = hint[2]  # the library's call on the user's line: its own fix
            first.detail = (first.detail + "; " if first.detail else "") + f"{hint[0]} at {hint[3]} raised it"
        if first is not None:
            note = f"capture failed: {first.line()}. Fix: {first.fix_hint or first.mistake.fix}"
        elif hint is not None:
            call, _, fix, where = hint
            note = (f"capture failed: {call} at {where} raised {type(e).__name__}: "
                    f"{str(e).splitlines()[0] if str(e) else ''}. Fix: {fix}")
        else:
            note = f"capture failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return Way("graph", WAYS["graph"], None, note=note,
                   diagnosis=diagnosis.to_dict() if diagnosis is not None else None)
    graph = cap.graph
    try:
        nodes = graph.node_count
    except Exception:  # a driver (or a stand-in) that cannot list nodes: the count stays unknown
        nodes = None
    graph.close()
    if nodes == 0 and callable_work:
        raise StreamIgnoredError(
            "the callable enqueued nothing on the stream it was given (a capture of one call holds no node): "
            "launch on the stream passed in (CuPy: `with stream:`, PyTorch: `with torch.cuda.stream(stream):`, "
            "cuda.core: launch(stream, ...)), or pass measure(..., stream=<your stream>)")
    return None


def capture_way(stream, call_once: Callable[[], None], *, mode: str = "thread_local", callable_work: bool = False,
                repeats: int = CAPTURE_COST_REPEATS) -> Way:
    """The work (``call_once()`` enqueues one call on ``stream``) captured through the capture doctor, then
    ``repeats`` times more without it to time capture and instantiate; the last executable is the one replayed."""
    from ...graphs.capture import capture

    failed = explained_capture(stream, call_once, mode=mode, callable_work=callable_work)
    if failed is not None:
        return failed
    costs: dict = {"capture_us": []}
    exe = None
    try:
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            with capture(stream, mode=mode, explain=False) as cap:
                call_once()
            costs["capture_us"].append((time.perf_counter_ns() - t0) / 1e3)
            try:
                if exe is not None:
                    exe.close()
                    exe = None
                if "nodes" not in costs:
                    try:
                        costs["nodes"] = cap.graph.node_count
                    except Exception:
                        costs["nodes"] = None
                exe = ready_exec_timed(cap.graph, stream, costs)
            finally:
                cap.graph.close()
    except BaseException:
        if exe is not None:
            exe.close()
        raise
    return graph_way(exe, stream, costs)


def native_graph_way(exe, stream) -> Way:
    try:
        from ...core.native_launch import NativeGraphLaunch

        native = NativeGraphLaunch(exe, stream)
    except Exception as e:
        return unavailable("native", e)
    return Way("native", WAYS["native"], repeat_calls((native.fire,)), close=native.close)


def floor_graph_way(exe, stream) -> Way:
    try:
        from ..native.loops import NativeFloor

        loop = NativeFloor().graph_loop(exe, stream)
    except Exception as e:
        return unavailable("floor", e)
    return Way("floor", WAYS["floor"], loop)
