"""The fake driver (tests/fake_driver.py) grown by the node families: graphs that remember their nodes and edges,
host nodes that the fake *really calls* at each launch (through the function pointer, as the driver would), event,
child graph and empty nodes, clones, node enabling, priorities and cuGraphInstantiateWithParams; and a fake libcuda
for core._door.launch_host_func. Graph handles stay in the ledger (made/released); nodes do not (the graph owns
them)."""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver, patch_driver

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_T = _real.CUgraphNodeType
INVALID_VALUE = _real.CUresult.CUDA_ERROR_INVALID_VALUE


class Node:
    __slots__ = ("handle", "kind", "payload", "priority")

    def __init__(self, handle, kind, payload=None):
        self.handle, self.kind, self.payload, self.priority = handle, kind, payload, 0


class FakeNodesDriver(FakeDriver):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.graphs: dict[int, dict] = {}  # graph handle -> {"nodes": [Node], "edges": [(a, b)]}
        self.nodes: dict[int, Node] = {}
        self.execs: dict[int, dict] = {}  # exec handle -> {"nodes": [...], "disabled": set(), "flags": int}
        self.capturing: dict[int, int] = {}  # stream -> graph being captured
        self.host_calls = 0
        self.bindings_host_func_calls = 0

    # --- graphs and nodes ---------------------------------------------------------------------------------------
    def _new_graph(self) -> int:
        g = self._make("graph")
        self.graphs[g] = {"nodes": [], "edges": []}
        return g

    def _add(self, graph, deps, kind, payload=None) -> int:
        g = self.graphs[int(graph)]
        h = next(self._ids)
        node = Node(h, kind, payload)
        self.nodes[h] = node
        g["nodes"].append(node)
        g["edges"] += [(int(d), h) for d in (deps or [])]
        return h

    def cuGraphCreate(self, flags):
        return (OK, self._new_graph())

    def cuStreamBeginCapture(self, stream, mode):
        self.capturing[int(stream)] = self._new_graph()
        self._capture_tail = {int(stream): []}
        return (OK,)

    def cuStreamEndCapture(self, stream):
        return (OK, self.capturing.pop(int(stream)))

    def cuStreamIsCapturing(self, stream):
        s = _real.CUstreamCaptureStatus
        return (OK, s.CU_STREAM_CAPTURE_STATUS_ACTIVE if int(stream) in self.capturing else
                s.CU_STREAM_CAPTURE_STATUS_NONE)

    def _capture_add(self, stream, kind, payload):
        g = self.capturing[int(stream)]
        tail = self._capture_tail[int(stream)]
        h = self._add(g, tail, kind, payload)
        self._capture_tail[int(stream)] = [h]

    def cuLaunchKernel(self, *args):
        stream = int(args[8])
        if stream in self.capturing:
            self._capture_add(stream, "KERNEL", {"func": args[0]})
        return (OK,)

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        return (OK, self._add(graph, deps, "KERNEL", {"func": params.func, "kp": int(params.kernelParams)}))

    def cuGraphKernelNodeSetParams(self, node, params):
        self.nodes[int(node)].payload = {"func": params.func, "kp": int(params.kernelParams)}
        return (OK,)

    def cuGraphKernelNodeGetParams(self, node):
        p = _real.CUDA_KERNEL_NODE_PARAMS()
        p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
        return (OK, p)

    def cuFuncGetName(self, func):
        return (OK, b"k")

    def cuGraphAddMemsetNode(self, graph, deps, count, params, ctx):
        return (OK, self._add(graph, deps, "MEMSET"))

    def cuGraphAddHostNode(self, graph, deps, count, params):
        return (OK, self._add(graph, deps, "HOST", (int(params.fn), int(params.userData))))

    def cuGraphHostNodeGetParams(self, node):
        p = _real.CUDA_HOST_NODE_PARAMS()
        fn, data = self.nodes[int(node)].payload
        p.fn = _real.CUhostFn(fn)
        p.userData = data
        return (OK, p)

    def cuLaunchHostFunc(self, *args):  # the bindings' one: cugraphlab must never call it
        self.bindings_host_func_calls += 1
        raise AssertionError("the bindings' cuLaunchHostFunc was called")

    def libcuda_launch_host_func(self, stream, fn, data) -> int:
        """What libcuda's cuLaunchHostFunc does: a host node inside a capture, else a call right away."""
        if int(stream) in self.capturing:
            self._capture_add(stream, "HOST", (int(fn), int(data)))
        else:
            self._call_host(fn, data)
        return 0

    def cuGraphAddEventRecordNode(self, graph, deps, count, event):
        return (OK, self._add(graph, deps, "EVENT_RECORD", int(event)))

    def cuGraphAddEventWaitNode(self, graph, deps, count, event):
        return (OK, self._add(graph, deps, "WAIT_EVENT", int(event)))

    def cuGraphEventRecordNodeGetEvent(self, node):
        return (OK, self.nodes[int(node)].payload)

    def cuGraphEventWaitNodeGetEvent(self, node):
        return (OK, self.nodes[int(node)].payload)

    def cuGraphAddEmptyNode(self, graph, deps, count):
        return (OK, self._add(graph, deps, "EMPTY"))

    def _copy_graph(self, graph) -> tuple[int, dict]:
        """A copy of a graph's nodes and edges in a new (unledgered) inner graph; old node -> new node."""
        src = self.graphs[int(graph)]
        inner = next(self._ids)
        self.graphs[inner] = {"nodes": [], "edges": []}
        twin = {}
        for n in src["nodes"]:
            h = next(self._ids)
            c = Node(h, n.kind, n.payload)
            self.nodes[h] = c
            twin[n.handle] = h
            self.graphs[inner]["nodes"].append(c)
        self.graphs[inner]["edges"] = [(twin[a], twin[b]) for a, b in src["edges"]]
        return inner, twin

    def cuGraphAddChildGraphNode(self, graph, deps, count, child):
        inner, _ = self._copy_graph(child)
        return (OK, self._add(graph, deps, "GRAPH", inner))

    def cuGraphChildGraphNodeGetGraph(self, node):
        return (OK, self.nodes[int(node)].payload)

    def cuGraphClone(self, graph):
        inner, twin = self._copy_graph(graph)
        clone = self._make("graph")
        self.graphs[clone] = self.graphs.pop(inner)
        self._twins = getattr(self, "_twins", {})
        self._twins[clone] = twin
        return (OK, clone)

    def cuGraphNodeFindInClone(self, node, clone):
        twin = self._twins.get(int(clone), {})
        if int(node) not in twin:
            return (INVALID_VALUE, None)
        return (OK, twin[int(node)])

    def cuGraphNodeGetType(self, node):
        kind = self.nodes[int(node)].kind
        return (OK, getattr(_T, f"CU_GRAPH_NODE_TYPE_{kind}"))

    def cuGraphGetNodes(self, graph, count):
        nodes = [n.handle for n in self.graphs[int(graph)]["nodes"]]
        if not count:
            return (OK, None, len(nodes))
        return (OK, [_real.CUgraphNode(h) for h in nodes[:count]], len(nodes))

    def cuGraphGetEdges(self, graph, count):
        edges = self.graphs[int(graph)]["edges"]
        if not count:
            return (OK, None, None, None, len(edges))
        return (OK, [_real.CUgraphNode(a) for a, _ in edges], [_real.CUgraphNode(b) for _, b in edges],
                [_real.CUgraphEdgeData() for _ in edges], len(edges))

    def cuGraphKernelNodeSetAttribute(self, node, attr, value):
        assert int(attr) == 8, attr  # CU_KERNEL_NODE_ATTRIBUTE_PRIORITY
        self.nodes[int(node)].priority = int(value.priority)
        return (OK,)

    def cuGraphKernelNodeGetAttribute(self, node, attr):
        v = _real.CUkernelNodeAttrValue()
        v.priority = self.nodes[int(node)].priority
        return (OK, v)

    def cuCtxGetStreamPriorityRange(self):
        return (OK, 0, -5)

    # --- execs ----------------------------------------------------------------------------------------------------
    def _flatten(self, graph) -> list[Node]:
        out = []
        for n in self.graphs[int(graph)]["nodes"]:
            out += self._flatten(n.payload) if n.kind == "GRAPH" else [n]
        return out

    def _instantiate(self, graph, flags) -> int:
        exe = self._make("graph exec")
        self.execs[exe] = {"nodes": self._flatten(graph), "disabled": set(), "flags": int(flags), "graph": int(graph)}
        return exe

    def cuGraphInstantiate(self, graph, flags):
        return (OK, self._instantiate(graph, flags))

    def cuGraphInstantiateWithParams(self, graph, p):
        flags = int(p.flags)
        if flags & int(_real.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH):
            for n in self._flatten(graph):
                if n.kind not in ("KERNEL", "MEMSET", "MEMCPY"):
                    p.result_out = _real.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
                    p.hErrNode_out = _real.CUgraphNode(n.handle)
                    return (INVALID_VALUE, None)
        self.last_instantiate = {"flags": flags, "upload_stream": int(p.hUploadStream)}
        return (OK, self._instantiate(graph, flags))

    def cuGraphExecDestroy(self, h):
        return self._release(h, "graph exec")

    def cuGraphNodeSetEnabled(self, exe, node, enabled):
        d = self.execs[int(exe)]["disabled"]
        (d.discard if enabled else d.add)(int(node))
        return (OK,)

    def cuGraphNodeGetEnabled(self, exe, node):
        return (OK, 0 if int(node) in self.execs[int(exe)]["disabled"] else 1)

    def cuGraphExecKernelNodeSetParams(self, exe, node, params):
        return (OK,)

    def cuGraphExecUpdate(self, exe, graph):
        return (OK, _real.CUgraphExecUpdateResultInfo())

    def _call_host(self, fn, data) -> None:
        self.host_calls += 1
        HOST_FN(int(fn))(int(data))  # through the pointer, as the driver's thread would

    def cuGraphLaunch(self, exe, stream):
        e = self.execs[int(exe)]
        if self.released[int(exe)]:
            return (_real.CUresult.CUDA_ERROR_INVALID_HANDLE,)
        for n in e["nodes"]:
            if n.kind == "HOST" and n.handle not in e["disabled"]:
                self._call_host(*n.payload)
        return (OK,)

    def cuEventSynchronize(self, h):
        return (OK,)

    def cuEventElapsedTime(self, a, b):
        return (OK, 0.001)


class FakeLibcuda:
    """Stands in for ctypes.CDLL("libcuda.so.1") in core._door.libcuda()."""

    def __init__(self, fake: FakeNodesDriver):
        self.fake = fake

    def cuLaunchHostFunc(self, stream, fn, data):
        return self.fake.libcuda_launch_host_func(stream, fn, data)


def install(monkeypatch) -> FakeNodesDriver:
    """cugraphlab talking to a FakeNodesDriver (and its libcuda), cuInit reset."""
    fake = FakeNodesDriver()
    return patch_driver(monkeypatch, fake, FakeLibcuda(fake))
