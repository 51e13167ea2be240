"""tests/fake_driver.FakeDriver grown a graph model: nodes, edges, conditional nodes with driver-owned bodies, and
stream capture (into a new graph or an existing one, with the capture's dependency frontier).

What the model keeps, and what a test can assert on:
- ``graphs[h]``: the nodes and edges of every graph (top level or body); node kinds and kernel names are answered by
  cuGraphGetNodes / cuGraphGetEdges / cuGraphNodeGetType / cuGraphKernelNodeGetParams / cuFuncGetName, so
  ``graphs.inspect.topology`` works on it.
- conditional nodes: cuGraphAddNode writes ``size`` body graphs (ledger kind "body graph") into
  ``params.conditional.phGraph_out`` as the driver does (a driver-owned array, kept alive here); destroying the
  parent graph releases them; destroying a body yourself answers CUDA_ERROR_INVALID_HANDLE and is listed in
  ``refused`` (a double free on a real driver).
- capture: cuStreamBeginCapture makes the graph at once (cuStreamGetCaptureInfo names it), captured launches and
  memsets become nodes after the stream's frontier, cuStreamUpdateCaptureDependencies replaces the frontier,
  cuStreamEndCapture returns the graph (for cuStreamBeginCaptureToGraph, the graph captured into: no new handle).
- invalidation, as the H200's driver does it (benchmarks/conditional_invalidation_probe.py): cuStreamSynchronize of
  a capturing stream answers CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture; cuStreamEndCapture
  then answers CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and, for a capture into an existing graph, destroys that graph
  (counted in ``released``); a parent whose conditional body was destroyed so is ``broken_parents``, and
  cuGraphDestroy of it is listed in ``refused`` (a segmentation fault on the H200).
- ``driver_version`` and ``cuda_version`` (the bindings' CUDA_VERSION, e.g. 12090 for the 12.x call forms).
"""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver

T = _real.CUgraphNodeType
_PHGRAPH_OFFSET = 16  # CUDA_CONDITIONAL_NODE_PARAMS: handle (8), type (4), size (4), phGraph_out (8), ctx (8)


class FakeConditionalDriver(FakeDriver):
    """FakeDriver plus graphs with nodes and edges, conditional nodes and capture into graphs."""

    def __init__(self, driver_version: int = 13000, cuda_version: int | None = None, **kw):
        super().__init__(driver_version, **kw)
        if cuda_version is not None:
            self.CUDA_VERSION = cuda_version  # what bindings_cuda_version() reads: picks the 12 or 13 call forms
        self.graphs: dict[int, dict] = {}  # graph -> {"nodes": [...], "edges": [(a, b)]}
        self.node_type: dict[int, object] = {}
        self.node_func: dict[int, int] = {}
        self.node_graph: dict[int, int] = {}
        self.conditional: dict[int, dict] = {}  # node -> {"type", "size", "handle", "bodies"}
        self.bodies_of: dict[int, list[int]] = {}  # parent graph -> its conditional bodies (recursively owned)
        self.func_names: dict[int, str] = {}
        self.captures: dict[int, dict] = {}  # stream -> {"graph", "deps", "to_existing"}
        self.handles: list[int] = []
        self.refused: list[tuple[str, int]] = []
        self._arrays = []  # the phGraph_out arrays, kept alive like driver-owned memory
        self.broken_parents: set[int] = set()  # parents whose body the driver destroyed (invalidated capture)

    # --- graphs as nodes and edges ------------------------------------------------------------------------------
    def _new_graph(self, kind: str = "graph") -> int:
        h = self._make(kind)
        self.graphs[h] = {"nodes": [], "edges": []}
        return h

    def _add_node(self, graph, deps, node_type, func=None) -> int:
        g = self.graphs[int(graph)]
        node = next(self._ids)
        g["nodes"].append(node)
        g["edges"] += [(int(d), node) for d in (deps or ())]
        self.node_type[node] = node_type
        self.node_graph[node] = int(graph)
        if func is not None:
            self.node_func[node] = int(func)
        return node

    def cuGraphCreate(self, flags):
        return (OK, self._new_graph())

    def cuGraphDestroy(self, h):
        h = int(h)
        if h in self.broken_parents:
            self.refused.append(("cuGraphDestroy of a parent whose conditional body the driver destroyed", h))
            return (_real.CUresult.CUDA_ERROR_UNKNOWN,)
        if self.made.get(h) == "body graph":
            self.refused.append(("cuGraphDestroy of a conditional body", h))
            return (_real.CUresult.CUDA_ERROR_INVALID_HANDLE,)
        r = self._release(h, "graph")
        if r[0] == OK:
            self._release_bodies(h)
        return r

    def _release_bodies(self, graph: int) -> None:
        for body in self.bodies_of.pop(graph, []):
            self.released[body] += 1  # freed by the driver with its parent
            self._release_bodies(body)

    def cuModuleGetFunction(self, module, name):
        f = next(self._ids)
        self.func_names[f] = name.decode() if isinstance(name, bytes) else str(name)
        return (OK, f)

    def cuFuncGetName(self, func):
        return (OK, self.func_names.get(int(func), "?").encode())

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        return (OK, self._add_node(graph, deps, T.CU_GRAPH_NODE_TYPE_KERNEL, int(params.func)))

    def cuGraphAddMemsetNode(self, graph, deps, count, params, ctx):
        return (OK, self._add_node(graph, deps, T.CU_GRAPH_NODE_TYPE_MEMSET))

    def cuGraphAddNode(self, graph, deps, *rest):
        if len(rest) == 3:  # the 13 form (graph, deps, edgeData, n, params)
            _data, _n, params = rest
        else:  # the 12.2 form (graph, deps, n, params)
            _n, params = rest
        return self._add_with_params(graph, deps, params)

    def cuGraphAddNode_v2(self, graph, deps, data, n, params):
        return self._add_with_params(graph, deps, params)

    def _add_with_params(self, graph, deps, params):
        if params.type != T.CU_GRAPH_NODE_TYPE_CONDITIONAL:
            return (OK, self._add_node(graph, deps, params.type))
        c = params.conditional
        if int(c.handle) not in self.handles:
            return (_real.CUresult.CUDA_ERROR_INVALID_VALUE,)
        size = int(c.size)
        node = self._add_node(graph, deps, T.CU_GRAPH_NODE_TYPE_CONDITIONAL)
        bodies = [self._new_graph("body graph") for _ in range(size)]
        arr = (ctypes.c_uint64 * max(size, 1))(*bodies)
        self._arrays.append(arr)
        ctypes.c_uint64.from_address(int(c.getPtr()) + _PHGRAPH_OFFSET).value = ctypes.addressof(arr)
        self.conditional[node] = {"type": c.type.name.replace("CU_GRAPH_COND_TYPE_", ""), "size": size,
                                  "handle": int(c.handle), "bodies": bodies}
        self.bodies_of.setdefault(int(graph), []).extend(bodies)
        return (OK, node)

    def cuGraphConditionalHandleCreate(self, graph, ctx, default, flags):
        h = next(self._ids)
        self.handles.append(h)
        return (OK, _real.CUgraphConditionalHandle(h))

    def cuGraphGetNodes(self, graph, count):
        nodes = list(self.graphs[int(graph)]["nodes"])
        return (OK, nodes[:count] if count else None, len(nodes))

    def cuGraphGetEdges(self, graph, count):  # the 13 form (edge data); 12.x's _v2 is the same
        edges = self.graphs[int(graph)]["edges"]
        if not count:
            return (OK, None, None, None, len(edges))
        return (OK, [a for a, _ in edges], [b for _, b in edges], [_real.CUgraphEdgeData() for _ in edges],
                len(edges))

    cuGraphGetEdges_v2 = cuGraphGetEdges

    def cuGraphNodeGetType(self, node):
        return (OK, self.node_type[int(node)])

    def cuGraphKernelNodeGetParams(self, node):
        p = _real.CUDA_KERNEL_NODE_PARAMS()
        p.func = self.node_func[int(node)]
        p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
        self._arrays.append(p)  # kept: a field read from it (.func) is a view of its memory
        return (OK, p)

    # --- capture ----------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        if int(stream) in self.captures:
            return (_real.CUresult.CUDA_ERROR_ILLEGAL_STATE,)
        self.captures[int(stream)] = {"graph": self._new_graph(), "deps": [], "to_existing": False}
        return (OK,)

    def cuStreamBeginCaptureToGraph(self, stream, graph, deps, data, n, mode):
        if int(stream) in self.captures or int(graph) not in self.graphs:
            return (_real.CUresult.CUDA_ERROR_ILLEGAL_STATE,)
        self.captures[int(stream)] = {"graph": int(graph), "deps": [int(d) for d in (deps or ())][:n],
                                      "to_existing": True}
        return (OK,)

    def cuStreamEndCapture(self, stream):
        cap = self.captures.pop(int(stream), None)
        if cap is None:
            return (_real.CUresult.CUDA_ERROR_ILLEGAL_STATE, None)
        if cap.get("invalid"):
            target = cap["graph"]
            if cap["to_existing"]:  # the driver destroys the graph captured into
                self.released[target] += 1
                for parent, bodies in self.bodies_of.items():
                    if target in bodies:
                        bodies.remove(target)
                        self.broken_parents.add(parent)
            return (_real.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
        return (OK, cap["graph"])

    def cuStreamSynchronize(self, h):
        cap = self.captures.get(int(h))
        if cap is not None:
            cap["invalid"] = True
            return (_real.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        return (OK,)

    def cuStreamGetCaptureInfo(self, stream):
        cap = self.captures.get(int(stream))
        S = _real.CUstreamCaptureStatus
        if cap is None:
            rest = (0, None, [], 0)
            status = S.CU_STREAM_CAPTURE_STATUS_NONE
        else:
            rest = (1, cap["graph"], list(cap["deps"]), len(cap["deps"]))
            status = S.CU_STREAM_CAPTURE_STATUS_ACTIVE
        cid, graph, deps, n = rest
        if self.CUDA_VERSION >= 13000:
            return (OK, status, cid, graph, deps, [_real.CUgraphEdgeData() for _ in deps], n)
        return (OK, status, cid, graph, deps, n)

    def cuStreamUpdateCaptureDependencies(self, stream, deps, *rest):
        flags = rest[-1]
        n = rest[-2]
        cap = self.captures.get(int(stream))
        if cap is None:
            return (_real.CUresult.CUDA_ERROR_ILLEGAL_STATE,)
        new = [int(d) for d in (deps or ())][:n]
        set_flag = int(_real.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES)
        cap["deps"] = new if int(flags) == set_flag else cap["deps"] + new
        return (OK,)

    def _captured(self, stream, node_type, func=None) -> bool:
        cap = self.captures.get(int(stream))
        if cap is None:
            return False
        node = self._add_node(cap["graph"], cap["deps"], node_type, func)
        cap["deps"] = [node]
        return True

    def cuLaunchKernel(self, *args):
        self._captured(args[8], T.CU_GRAPH_NODE_TYPE_KERNEL, args[0])
        return (OK,)

    def cuMemsetD32Async(self, dst, value, count, stream):
        self._captured(stream, T.CU_GRAPH_NODE_TYPE_MEMSET)
        return (OK,)

    def __getattr__(self, name):
        if name == "CUDA_VERSION":
            return _real.CUDA_VERSION
        return super().__getattr__(name)
