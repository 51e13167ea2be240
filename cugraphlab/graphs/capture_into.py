"""Stream capture into a graph that already exists, and nodes added by hand in the middle of a capture.

A conditional node's body graphs are made by the driver and owned by the node; stream capture can fill them, so the
same launches that run eagerly also build the body (CUDA 12.3+; CUDA Programming Guide, "Conditional Graph Nodes")::

    node, (body,) = cuGraphAddNode(parent, deps, params{CONDITIONAL, WHILE, handle, size 1})
    cuStreamBeginCaptureToGraph(stream, body, NULL, NULL, 0, mode)   # capture into the existing body
    ... launches on stream ...                                      # kernel nodes of the body, in stream order
    cuStreamEndCapture(stream)                                      # returns `body` itself: still the node's

The other way round, the parent itself is captured and the conditional node is added while the capture runs::

    cuStreamBeginCapture(stream, mode)
    ... work on stream ...                                          # captured nodes of the parent
    status, id, graph, deps = cuStreamGetCaptureInfo(stream)        # the graph being built, and its frontier
    handle = cuGraphConditionalHandleCreate(graph, ctx, default, flags)
    node, bodies = cuGraphAddNode(graph, deps, params)              # added by hand after the frontier
    cuStreamUpdateCaptureDependencies(stream, [node], SET)          # what follows on stream comes after the node
    ... fill each body (capture into it on another stream, or add nodes) ...
    graph = cuStreamEndCapture(stream)                              # the parent: the caller owns it

A stream takes part in one capture at a time, so a body is captured on a second stream while the parent's capture is
still open. The graph cuStreamGetCaptureInfo names belongs to the capture until it ends, and a body to its node: no
Graph object wraps either (CUDA Driver API, "Stream Management" and "Graph Management").
"""
from __future__ import annotations

from typing import Literal

from ..core._calls import (
    cu,
    driver_fn,
    driver_module,
    require_bindings,
    stream_capture_info,
    stream_set_capture_dependencies,
)
from ..core.errors import CugraphlabError, InvalidArgumentError, check
from .capture import CAPTURE_MODES
from .conditional import add_conditional_bodies, create_handle
from .taken import driver_took

__all__ = ["capture_into", "capturing_graph", "capture_handle", "add_conditional_to_capture",
           "require_capture_into"]


def require_capture_into() -> None:
    """UnsupportedError unless the bindings have cuStreamBeginCaptureToGraph (CUDA 12.3+)."""
    require_bindings("capture into an existing graph", "cuStreamBeginCaptureToGraph", "cuStreamGetCaptureInfo",
                     "cuStreamUpdateCaptureDependencies")


def _mode(mode: str):
    if mode not in CAPTURE_MODES:
        raise InvalidArgumentError(f"capture mode must be one of {', '.join(CAPTURE_MODES)}, got {mode!r}")
    return getattr(driver_module().CUstreamCaptureMode, f"CU_STREAM_CAPTURE_MODE_{mode.upper()}")


def _note(exc, said: str) -> None:
    if said and exc is not None and hasattr(exc, "add_note"):  # add_note: Python 3.11+
        exc.add_note(f"cugraphlab: {said}.")


class capture_into:
    """Context manager: everything enqueued on ``stream`` in the block becomes nodes of the existing graph
    ``graph`` (a handle, e.g. a conditional body; cuStreamBeginCaptureToGraph ... cuStreamEndCapture).

    The graph stays its owner's: nothing here destroys it, on success or failure. ``deps``: nodes of ``graph`` the
    first captured node depends on (none for an empty body). ``mode`` as in graphs.capture ("relaxed" by default,
    as the CUDA Programming Guide captures bodies). A capture the driver invalidated raises CaptureError (from
    cuStreamEndCapture's status).

    Parameters
    ----------
    stream : Stream
        The stream whose work is captured.
    graph : Graph or CUgraph
        The existing graph the nodes are added to.
    deps : sequence of CUgraphNode, optional
        Nodes of ``graph`` the first captured node depends on.
    mode : str, optional
        "relaxed" (default), "thread_local" or "global".
    explain : bool or None, optional
        Watch the capture with the capture doctor; None follows ``doctor.explaining()``.

    Raises
    ------
    UnsupportedError
        The bindings lack cuStreamBeginCaptureToGraph (CUDA 12.3+; a driver without it fails at the call).
    InvalidArgumentError
        An unknown ``mode``.
    CaptureError
        The driver invalidated the capture.
    CudaError
        cuStreamBeginCaptureToGraph or cuStreamEndCapture failed.

    See Also
    --------
    cuStreamBeginCaptureToGraph : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1gac495e0527d1dd6437f95ee482f61865
    cuStreamEndCapture : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g03dab8b2ba76b00718955177a929970c
    """

    def __init__(self, stream, graph, deps=(), mode: str = "relaxed", explain: bool | None = None):
        require_capture_into()
        self.stream, self.graph = stream, getattr(graph, "handle", graph)
        self.deps = list(deps)
        self.mode = _mode(mode)
        self.diagnosis = None
        if explain is None:
            from .doctor import explaining

            explain = explaining()
        self._doctor = None
        if explain:  # the capture doctor watches it as it does graphs.capture's (``cugraphlab doctor`` turns it on)
            from .doctor import Doctor

            self._doctor = Doctor(stream, mode)

    def __enter__(self) -> "capture_into":
        d = driver_module()
        data = [d.CUgraphEdgeData() for _ in self.deps] or None
        if self._doctor is not None:
            self._doctor.into = (self.graph, self.deps, data)
            self._doctor.begin()
            return self
        cu("cuStreamBeginCaptureToGraph", self.stream.handle, self.graph, self.deps or None, data, len(self.deps),
           self.mode)
        return self

    def __exit__(self, exc_type, exc, tb) -> Literal[False]:
        if self._doctor is not None:
            result, self.diagnosis = self._doctor.end(exc)
        else:
            result = driver_fn("cuStreamEndCapture")(self.stream.handle)
        said = ""
        if int(result[0]) == int(driver_module().CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED):
            said = driver_took(self.graph)  # the driver destroyed the graph captured into (graphs.taken)
        if exc_type is not None:
            _note(exc, said)
            self._attach(exc)
            return False  # the block's error goes on; the graph is not ours to destroy
        try:
            check(result, "cuStreamEndCapture")
        except CugraphlabError as e:
            _note(e, said)
            self._attach(e)
            raise
        got = result[1]
        if got is not None and int(got) and int(got) != int(self.graph):
            raise CugraphlabError("cuStreamEndCapture returned another graph than the one captured into")
        return False


    def _attach(self, error) -> None:
        """A CaptureError out of an explained capture carries the doctor's diagnosis (as graphs.capture's)."""
        from ..core.errors import CaptureError

        if self.diagnosis is not None and isinstance(error, CaptureError):
            from .capture import _attach

            _attach(error, self.diagnosis)


def capturing_graph(stream) -> tuple:
    """(graph, dependencies) of the capture running on ``stream`` (cuStreamGetCaptureInfo): the graph being built
    (the capture's, not the caller's) and the nodes the next one will depend on. InvalidArgumentError when the
    stream is not capturing."""
    d = driver_module()
    status, _cid, graph, deps = stream_capture_info(stream.handle)
    if status != d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE:
        raise InvalidArgumentError(f"the stream is not capturing (capture status {getattr(status, 'name', status)})")
    return graph, deps


def capture_handle(stream, ctx, default: int | None):
    """A conditional handle of the graph being captured on ``stream`` (graphs.conditional.create_handle)."""
    graph, _deps = capturing_graph(stream)
    return create_handle(graph, ctx, default)


def add_conditional_to_capture(stream, kind: str, handle, ctx, size: int = 1) -> tuple:
    """(node, bodies): a conditional node added by hand to the graph captured on ``stream``, after everything
    captured so far; the stream's later work then depends on the node (cuStreamGetCaptureInfo, cuGraphAddNode,
    cuStreamUpdateCaptureDependencies). Fill the bodies before the capture ends."""
    graph, deps = capturing_graph(stream)
    node, bodies = add_conditional_bodies(graph, deps, kind, handle, ctx, size)
    stream_set_capture_dependencies(stream.handle, [node])
    return node, bodies
