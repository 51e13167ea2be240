"""A fake driver that captures: the capture rules of the CUDA driver, small enough to read, for the doctor's tests.

Extends tests/fake_driver.FakeDriver with what a capture needs: a status per stream (NONE, ACTIVE, INVALIDATED), a
capture id and a graph under construction per capture (nodes, edges, each stream's dependency set), events that
remember the capture and the nodes they were recorded on, and the refusals:

* synchronizing a capturing stream (cuStreamSynchronize) or the context (cuCtxSynchronize) during a capture:
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, the capture invalidated;
* a potentially unsafe call (cuMemAlloc, cuMemcpyHtoD, cuMemcpyDtoH, cuEventQuery, cuStreamQuery) while this thread
  captures in GLOBAL/THREAD_LOCAL mode or another thread captures in GLOBAL mode: UNSUPPORTED, those captures
  invalidated;
* work on the legacy stream (0) while a blocking stream captures: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
* waiting on an event recorded in another capture: CUDA_ERROR_STREAM_CAPTURE_MERGE;
* ending a capture with a forked stream whose last node does not reach the origin: _UNJOINED.

Calls on an invalidated capture answer CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; cuStreamEndCapture ends it for every
stream. ``foreign_invalidate(stream)`` plays a call the door does not see (CuPy, PyTorch).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver

R = _real.CUresult
S = _real.CUstreamCaptureStatus
MODES = {int(_real.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL): "global",
         int(_real.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL): "thread_local",
         int(_real.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED): "relaxed"}


@dataclass
class _Capture:
    id: int
    origin: int
    mode: str
    thread: int
    graph: int
    invalid: bool = False
    deps: dict = field(default_factory=dict)  # stream -> list of nodes


@dataclass
class _KernelParams:
    func: int
    gridDimX: int = 1
    gridDimY: int = 1
    gridDimZ: int = 1
    blockDimX: int = 1
    blockDimY: int = 1
    blockDimZ: int = 1


class CaptureFakeDriver(FakeDriver):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.blocking: set[int] = set()
        self.captures: dict[int, _Capture] = {}  # stream -> capture it belongs to
        self.events: dict[int, tuple[int, list]] = {}  # event -> (capture id or 0, nodes)
        self.graph_nodes: dict[int, list[int]] = {}
        self.graph_edges: dict[int, list[tuple[int, int]]] = {}
        self.node_func: dict[int, int] = {}
        self.func_names: dict[int, bytes] = {}
        self._capture_ids = iter(range(1, 1 << 30))
        self.calls: list[str] = []

    # --- streams --------------------------------------------------------------------------------------------------
    def cuStreamCreate(self, flags):
        r = super().cuStreamCreate(flags)
        if int(flags) == int(_real.CUstream_flags.CU_STREAM_DEFAULT):
            self.blocking.add(r[1])
        return r

    def _cap(self, stream):
        return self.captures.get(int(stream))

    def _invalidate(self, cap: _Capture):
        cap.invalid = True

    def foreign_invalidate(self, stream) -> None:
        """What a call outside cugraphlab (a CuPy sync, say) does to a capture."""
        self._invalidate(self._cap(getattr(stream, "handle", stream)))

    def _unsafe(self):
        """UNSUPPORTED (and invalidate) when a capture forbids potentially unsafe calls in this thread."""
        me = threading.get_ident()
        hit = {id(c): c for c in self.captures.values() if not c.invalid and (
            (c.thread == me and c.mode != "relaxed") or (c.thread != me and c.mode == "global"))}
        for c in hit.values():
            self._invalidate(c)
        return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,) if hit else None

    # --- capture --------------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        s = int(stream)
        if s in self.captures:
            return (R.CUDA_ERROR_ILLEGAL_STATE,)
        g = self._make("graph")
        self.graph_nodes[g], self.graph_edges[g] = [], []
        self.captures[s] = _Capture(next(self._capture_ids), s, MODES[int(mode)], threading.get_ident(), g,
                                    deps={s: []})
        return (OK,)

    def _status(self, stream):
        c = self._cap(stream)
        if c is None:
            return S.CU_STREAM_CAPTURE_STATUS_NONE
        return S.CU_STREAM_CAPTURE_STATUS_INVALIDATED if c.invalid else S.CU_STREAM_CAPTURE_STATUS_ACTIVE

    def cuStreamIsCapturing(self, stream):
        return (OK, self._status(stream))

    def cuStreamGetCaptureInfo(self, stream):
        c = self._cap(stream)
        if c is None or c.invalid:
            return (OK, self._status(stream), 0, None, [], [], 0)
        deps = list(c.deps[int(stream)])
        return (OK, S.CU_STREAM_CAPTURE_STATUS_ACTIVE, c.id, c.graph, deps, [None] * len(deps), len(deps))

    def _reachable_to(self, graph, targets):
        preds = {}
        for a, b in self.graph_edges[graph]:
            preds.setdefault(b, []).append(a)
        seen, todo = set(), list(targets)
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(preds.get(n, ()))
        return seen

    def cuStreamEndCapture(self, stream):
        s = int(stream)
        c = self._cap(s)
        if c is None or c.origin != s:
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, None)
        if c.mode != "relaxed" and c.thread != threading.get_ident():
            return (R.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, None)
        for h in [h for h, x in self.captures.items() if x is c]:
            del self.captures[h]
        if c.invalid:
            self.released[c.graph] += 1
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
        reach = self._reachable_to(c.graph, c.deps[s])
        if any(n not in reach for h, deps in c.deps.items() if h != s for n in deps):
            self.released[c.graph] += 1
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNJOINED, None)
        return (OK, c.graph)

    def _enqueue(self, stream, func=None):
        """Work on ``stream``: run (nothing to do), record a node, or refuse."""
        s = int(stream)
        if s in (0, 1):
            hit = [c for c in self.captures.values() if not c.invalid and any(h in self.blocking for h in c.deps)]
            for c in hit:
                self._invalidate(c)
            return (R.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,) if hit else (OK,)
        c = self._cap(s)
        if c is None:
            return (OK,)
        if c.invalid:
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
        node = next(self._ids)
        self.graph_nodes[c.graph].append(node)
        self.graph_edges[c.graph] += [(d, node) for d in c.deps[s]]
        c.deps[s] = [node]
        if func is not None:
            self.node_func[node] = int(func)
        return (OK,)

    def cuLaunchKernel(self, *args):
        return self._enqueue(args[8], args[0])

    def cuLaunchKernelEx(self, config, func, params, extra):
        return self._enqueue(config.hStream, func)

    def cuMemsetD32Async(self, dst, value, count, stream):
        return self._enqueue(stream)

    def cuMemcpyHtoDAsync(self, dst, src, nbytes, stream):
        return self._enqueue(stream)

    def cuMemcpyDtoHAsync(self, dst, src, nbytes, stream):
        return self._enqueue(stream)

    def cuEventRecord(self, event, stream):
        c = self._cap(stream)
        if c is not None and c.invalid:
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
        self.events[int(event)] = (c.id, list(c.deps[int(stream)])) if c else (0, [])
        return (OK,)

    def cuStreamWaitEvent(self, stream, event, flags):
        s = int(stream)
        cap_id, nodes = self.events.get(int(event), (0, []))
        c = self._cap(s)
        if c is not None and c.invalid:
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
        if not cap_id:
            return (OK,)
        owner = next((x for x in self.captures.values() if x.id == cap_id), None)
        if owner is None:
            return (OK,)
        if c is None:  # a fork: the stream joins the event's capture
            self.captures[s] = owner
            owner.deps[s] = list(nodes)
            return (OK,)
        if c is not owner:
            self._invalidate(c)
            return (R.CUDA_ERROR_STREAM_CAPTURE_MERGE,)
        c.deps[s] = list(dict.fromkeys(c.deps[s] + nodes))
        return (OK,)

    # --- synchronizing and potentially unsafe calls ------------------------------------------------------------------
    def cuStreamSynchronize(self, h):
        c = self._cap(h)
        if c is not None:
            self._invalidate(c)
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        return (OK,)

    def cuCtxSynchronize(self):
        if self.captures:
            for c in self.captures.values():
                self._invalidate(c)
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        return (OK,)

    def cuMemAlloc(self, nbytes):
        refused = self._unsafe()
        return (refused[0], None) if refused else super().cuMemAlloc(nbytes)

    def cuMemcpyHtoD(self, dst, src, nbytes):
        return self._unsafe() or (OK,)

    def cuMemcpyDtoH(self, dst, src, nbytes):
        return self._unsafe() or (OK,)

    def cuEventQuery(self, event):
        if self.events.get(int(event), (0, []))[0]:
            return (R.CUDA_ERROR_CAPTURED_EVENT,)
        return self._unsafe() or (OK,)

    def cuPointerGetAttribute(self, attr, ptr):
        return (R.CUDA_ERROR_INVALID_VALUE, None)  # every host pointer here is pageable

    # --- graphs under construction ----------------------------------------------------------------------------------
    def cuModuleGetFunction(self, module, name):
        h = next(self._ids)
        self.func_names[h] = bytes(name)
        return (OK, h)

    def cuFuncGetName(self, func):
        return (OK, self.func_names.get(int(func), b"?"))

    def cuGraphGetNodes(self, graph, count):
        nodes = self.graph_nodes.get(int(graph), [])
        return (OK, list(nodes[:count]) if count else None, len(nodes))

    def cuGraphGetEdges(self, graph, count):
        edges = self.graph_edges.get(int(graph), [])
        if not count:
            return (OK, None, None, None, len(edges))
        return (OK, [a for a, _ in edges], [b for _, b in edges], [None] * len(edges), len(edges))

    def cuGraphNodeGetType(self, node):
        return (OK, _real.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL if int(node) in self.node_func
                else _real.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET)

    def cuGraphKernelNodeGetParams(self, node):
        return (OK, _KernelParams(self.node_func[int(node)]))
