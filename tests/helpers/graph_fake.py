"""A fake driver that keeps real graphs: nodes and edges added explicitly or by stream capture (fork/join included).

Extends tests/helpers/fake_driver.FakeDriver (tests/helpers is on sys.path: pyproject's pythonpath). What capture
does is modelled on the CUDA semantics the workload relies on: a capturing stream's launches become nodes after the stream's current
dependencies; ``cuEventRecord`` on a capturing stream remembers them; ``cuStreamWaitEvent`` of such an event brings
another stream into the capture (or adds the event's nodes to its dependencies); ``cuStreamEndCapture`` fails with
CUDA_ERROR_STREAM_CAPTURE_UNJOINED when a stream's work does not flow back into the origin. Mapped host memory
(cuMemHostAlloc, cuMemHostGetDevicePointer) is real host memory, so flags written by the code under test can be read.
"""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver

ERR_UNJOINED = _real.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNJOINED
ERR_INVALID = _real.CUresult.CUDA_ERROR_INVALID_VALUE


class GraphFakeDriver(FakeDriver):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.graphs: dict[int, dict] = {}  # graph -> {"nodes": [node], "edges": [(a, b)], "kind": {node: str}}
        self.capturing: dict[int, dict] = {}  # stream -> {"graph", "origin", "deps": [node]}
        self.events: dict[int, dict] = {}  # event -> {"graph", "deps"}
        self.launches: list[tuple] = []  # eager launches: (func, stream)
        self.graph_launches: list[tuple] = []  # (exec, stream)
        self.exec_graph: dict[int, int] = {}
        self.on_launch = None  # optional hook(func, stream, params) for eager launches

    # --- graphs ---------------------------------------------------------------------------------------------
    def _new_graph(self) -> int:
        g = self._make("graph")
        self.graphs[g] = {"nodes": [], "edges": [], "func": {}}
        return g

    def _add(self, graph, deps, func) -> int:
        g = self.graphs[int(graph)]
        node = next(self._ids)
        g["nodes"].append(node)
        g["func"][node] = func
        g["edges"] += [(int(d), node) for d in (deps or [])]
        return node

    def cuGraphCreate(self, flags):
        return (OK, self._new_graph())

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        deps = list(deps or [])
        if len(deps) != count:
            return (ERR_INVALID, None)
        return (OK, self._add(graph, deps, int(params.func) if params is not None else None))

    def cuGraphGetNodes(self, graph, count=0):
        nodes = self.graphs[int(graph)]["nodes"]
        if not count:
            return (OK, None, len(nodes))
        return (OK, list(nodes[:count]), min(count, len(nodes)))

    def cuGraphGetEdges(self, graph, count=0):
        edges = self.graphs[int(graph)]["edges"]
        if not count:
            return (OK, None, None, None, len(edges))
        e = edges[:count]
        return (OK, [a for a, _ in e], [b for _, b in e], [None] * len(e), len(e))

    def cuGraphInstantiate(self, graph, flags):
        h = self._make("graph exec")
        self.exec_graph[h] = int(graph)
        return (OK, h)

    def cuGraphLaunch(self, exe, stream):
        self.graph_launches.append((int(exe), int(stream)))
        return (OK,)

    # --- capture ----------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        self.capturing[int(stream)] = {"graph": self._new_graph(), "origin": int(stream), "deps": []}
        return (OK,)

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        cap = self.capturing.get(int(stream))
        if cap is None:
            self.launches.append((int(func), int(stream)))
            if self.on_launch:
                self.on_launch(int(func), int(stream), params)
            return (OK,)
        node = self._add(cap["graph"], cap["deps"], int(func))
        cap["deps"] = [node]
        return (OK,)

    def cuEventRecord(self, event, stream):
        cap = self.capturing.get(int(stream))
        self.events[int(event)] = ({"graph": cap["graph"], "deps": list(cap["deps"]), "origin": cap["origin"]}
                                   if cap else {"graph": None, "deps": []})
        return (OK,)

    def cuStreamWaitEvent(self, stream, event, flags):
        ev = self.events.get(int(event))
        if ev is None or ev["graph"] is None:
            return (OK,)
        cap = self.capturing.get(int(stream))
        if cap is None:  # the stream joins the capture
            self.capturing[int(stream)] = {"graph": ev["graph"], "origin": ev["origin"], "deps": list(ev["deps"])}
        else:
            cap["deps"] = list(dict.fromkeys(cap["deps"] + ev["deps"]))
        return (OK,)

    def cuStreamEndCapture(self, stream):
        cap = self.capturing.pop(int(stream), None)
        if cap is None:
            return (_real.CUresult.CUDA_ERROR_ILLEGAL_STATE, None)
        graph = cap["graph"]
        preds: dict[int, set] = {}
        for a, b in self.graphs[graph]["edges"]:
            preds.setdefault(b, set()).add(a)
        reach, todo = set(), list(cap["deps"])
        while todo:
            n = todo.pop()
            if n not in reach:
                reach.add(n)
                todo += preds.get(n, ())
        others = [s for s, c in self.capturing.items() if c["graph"] == graph]
        unjoined = any(not set(self.capturing[s]["deps"]) <= reach for s in others)
        for s in others:
            del self.capturing[s]
        if unjoined:
            return (ERR_UNJOINED, None)
        return (OK, graph)

    # --- mapped host memory and memory info ---------------------------------------------------------------------
    def cuMemHostAlloc(self, nbytes, flags):
        buf = ctypes.create_string_buffer(int(nbytes))
        addr = ctypes.addressof(buf)
        self._host[addr] = buf
        self.made[addr] = "host memory"
        return (OK, addr)

    def cuMemHostGetDevicePointer(self, p, flags):
        return (OK, int(p))

    # --- a graph as a structure -------------------------------------------------------------------------------
    def structure(self, graph) -> tuple[list, list]:
        g = self.graphs[int(graph)]
        return g["nodes"], g["edges"]
