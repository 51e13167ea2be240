"""tests/helpers/fake_conditional's graph model grown edge data: programmatic edges made by capture (cuLaunchKernelEx
with programmatic stream serialization) or by cuGraphAddNode with CUgraphEdgeData, reported back by cuGraphGetEdges;
and the ways a driver might refuse them inside a conditional body, chosen per test:

- ``refuse="launch"``: a programmatic launch captured into a body answers CUDA_ERROR_NOT_SUPPORTED;
- ``refuse="add_node"``: cuGraphAddNode with a programmatic edge into a body answers CUDA_ERROR_INVALID_VALUE;
- ``refuse="end_capture"``: cuStreamEndCapture of such a capture answers CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
- ``refuse="instantiate"``: cuGraphInstantiate of a graph whose body holds one answers CUDA_ERROR_NOT_SUPPORTED;
- ``refuse="downgrade"``: everything succeeds, but the edges are kept plain.

``edge_data[(a, b)]`` is (type, from_port, to_port) of every edge; ``kernel_nodes[graph]`` the kernel names in order
of creation; ``launch_kinds`` every captured launch as "plain" or "programmatic".
"""
from __future__ import annotations

from cuda.bindings import driver as _real

from fake_conditional import FakeConditionalDriver
from fake_driver import OK

T = _real.CUgraphNodeType
R = _real.CUresult
PROGRAMMATIC = int(_real.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
PORT_PROGRAMMATIC = int(_real.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC)
_PSS = _real.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
REFUSALS = ("launch", "add_node", "end_capture", "instantiate", "downgrade")


class FakePdlBodyDriver(FakeConditionalDriver):
    def __init__(self, refuse: str | None = None, **kw):
        super().__init__(**kw)
        if refuse is not None and refuse not in REFUSALS:
            raise ValueError(refuse)
        self.refuse = refuse
        self.edge_data: dict[tuple[int, int], tuple[int, int, int]] = {}
        self.launch_kinds: list[str] = []
        self.bad_capture: set[int] = set()  # streams whose capture the driver invalidated
        self.add_node_data: list[list[tuple[int, int, int]]] = []  # per cuGraphAddNode call

    def _in_body(self, graph) -> bool:
        return self.made.get(int(graph)) == "body graph"

    def _edges_into(self, node, deps, data) -> None:
        for k, d in enumerate(deps or ()):
            e = data[k] if data is not None and k < len(data) else None
            t = (0, 0, 0) if e is None else (int(e.type), int(e.from_port), int(e.to_port))
            if self.refuse == "downgrade":
                t = (0, 0, 0)
            self.edge_data[(int(d), node)] = t

    # --- nodes with edge data ---------------------------------------------------------------------------------
    def _add_with_data(self, graph, deps, data, params):
        triples = [(int(e.type), int(e.from_port), int(e.to_port)) for e in (data or ())]
        self.add_node_data.append(triples)
        if params.type != T.CU_GRAPH_NODE_TYPE_KERNEL:
            return self._add_with_params(graph, deps, params)
        if self.refuse == "add_node" and self._in_body(graph) and any(t[0] == PROGRAMMATIC for t in triples):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        node = self._add_node(graph, deps, T.CU_GRAPH_NODE_TYPE_KERNEL, int(params.kernel.func))
        self._edges_into(node, deps, data)
        return (OK, node)

    def cuGraphAddNode(self, graph, deps, *rest):
        if len(rest) == 3:  # the 13 form (graph, deps, edgeData, n, params)
            data, _n, params = rest
        else:  # the 12.2 form: no edge data
            data, (_n, params) = None, rest
        return self._add_with_data(graph, deps, data, params)

    def cuGraphAddNode_v2(self, graph, deps, data, n, params):
        return self._add_with_data(graph, deps, data, params)

    # --- capture of programmatic launches ---------------------------------------------------------------------
    def cuLaunchKernelEx(self, config, func, params, extra):
        programmatic = any(a.id == _PSS and a.value.programmaticStreamSerializationAllowed
                           for a in list(config.attrs)[:int(config.numAttrs)])
        stream = int(config.hStream)
        cap = self.captures.get(stream)
        if cap is None:
            return (OK,)
        self.launch_kinds.append("programmatic" if programmatic else "plain")
        into_body = self._in_body(cap["graph"])
        if programmatic and into_body and self.refuse == "launch":
            return (R.CUDA_ERROR_NOT_SUPPORTED,)
        if programmatic and into_body and self.refuse == "end_capture":
            self.bad_capture.add(stream)
        deps = list(cap["deps"])
        node = self._add_node(cap["graph"], deps, T.CU_GRAPH_NODE_TYPE_KERNEL, int(func))
        edge = _real.CUgraphEdgeData()
        if programmatic:
            edge.type, edge.from_port = PROGRAMMATIC, PORT_PROGRAMMATIC
        self._edges_into(node, deps, [edge] * len(deps))
        cap["deps"] = [node]
        return (OK,)

    def cuLaunchKernel(self, *args):
        if int(args[8]) in self.captures:
            self.launch_kinds.append("plain")
        return super().cuLaunchKernel(*args)

    def cuStreamEndCapture(self, stream):
        if int(stream) in self.bad_capture:
            self.bad_capture.discard(int(stream))
            self.captures.pop(int(stream), None)
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
        return super().cuStreamEndCapture(stream)

    # --- edges back, and instantiation -----------------------------------------------------------------------
    def cuGraphGetEdges(self, graph, count):
        edges = self.graphs[int(graph)]["edges"]
        if not count:
            return (OK, None, None, None, len(edges))
        data = []
        for a, b in edges:
            e = _real.CUgraphEdgeData()
            e.type, e.from_port, e.to_port = self.edge_data.get((a, b), (0, 0, 0))
            data.append(e)
        return (OK, [a for a, _ in edges], [b for _, b in edges], data, len(edges))

    cuGraphGetEdges_v2 = cuGraphGetEdges

    def _programmatic_in_bodies(self, graph: int) -> bool:
        for body in self.bodies_of.get(graph, []):
            if any(self.edge_data.get(e, (0,))[0] == PROGRAMMATIC for e in self.graphs[body]["edges"]):
                return True
            if self._programmatic_in_bodies(body):
                return True
        return False

    def cuGraphInstantiate(self, graph, flags):
        if self.refuse == "instantiate" and self._programmatic_in_bodies(int(graph)):
            return (R.CUDA_ERROR_NOT_SUPPORTED, None)
        return super().cuGraphInstantiate(graph, flags)
