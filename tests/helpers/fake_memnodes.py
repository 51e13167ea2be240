"""tests/helpers/fake_driver.FakeDriver taught graph memory nodes: graphs that keep their nodes and edges, alloc and free
nodes (explicit and captured), the one-exec and unfreed-relaunch rules, a footprint, and 32-bit device memory.

What it models (so CPU tests can check cugraphlab's plumbing, never the driver's promises):
* graphs keep nodes (type, params) and edges; stream capture on a stream records kernel launches, cuMemAllocAsync
  and cuMemFreeAsync as nodes in order, each after the one before;
* an alloc node takes the address of an allocation of the same size freed earlier in the same graph, else a new one;
* a second cuGraphInstantiate of a graph with memory nodes while its exec lives answers CUDA_ERROR_INVALID_VALUE, and
  so does cuGraphLaunch of an exec whose last launch left allocations live (without AUTO_FREE_ON_LAUNCH);
* launching runs memset nodes into a dict of 32-bit words by address; cuMemsetD32Async and cuMemcpyDtoHAsync use it;
* the footprint as the H200's driver 580 showed it: used = bytes mapped by launched, live execs, plus live leftover
  allocations, plus what destroyed execs had mapped (the pool keeps it mapped until cuDeviceGraphMemTrim); reserved
  = the most used since the last trim; the trim drops what no live exec or allocation holds;
* cuMemGetInfo's free memory = a fixed total less cuMemAlloc'd bytes and the reserved graph pool.
"""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver, patch_driver

INVALID_VALUE = _real.CUresult.CUDA_ERROR_INVALID_VALUE
T = _real.CUgraphNodeType


class FakeMemDriver(FakeDriver):
    """FakeDriver plus graph memory nodes (see the module docstring)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.graphs: dict[int, dict] = {}  # graph -> {"nodes": [...], "edges": [(a, b)], "reuse": [(size, addr)]}
        self.nodes: dict[int, dict] = {}  # node -> {"type", "graph", ...}
        self.execs: dict[int, dict] = {}  # exec -> {"graph", "auto_free", "launched", "outstanding"}
        self.capturing: dict[int, dict] = {}  # stream -> {"graph", "last"}
        self.func_names: dict[int, str] = {}
        self.words: dict[int, int] = {}  # device address -> 32-bit pattern filling that allocation
        self.graph_allocs: dict[int, int] = {}  # live graph allocation address -> bytes
        self._next_addr = 0x7F0000000000
        self.reserved = 0
        self.retained = 0  # bytes destroyed execs had mapped: still in the pool, counted as used, until a trim
        self.high = {"used": 0, "reserved": 0}
        self.alloc_sizes: dict[int, int] = {}  # cuMemAlloc'd handle -> bytes (for cuMemGetInfo)
        self.calls: list[str] = []

    # --- graphs that keep their nodes ---------------------------------------------------------------------------
    def cuGraphCreate(self, flags):
        r = super().cuGraphCreate(flags)
        self.graphs[r[1]] = {"nodes": [], "edges": [], "reuse": []}
        return r

    def _node(self, graph, deps, kind, **info) -> int:
        g = self.graphs[int(graph)]
        h = next(self._ids)
        self.nodes[h] = {"type": kind, "graph": int(graph), **info}
        g["nodes"].append(h)
        g["edges"] += [(int(d), h) for d in (deps or ())]
        return h

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        return (OK, self._node(graph, deps, T.CU_GRAPH_NODE_TYPE_KERNEL, params=params))

    def cuGraphAddMemsetNode(self, graph, deps, count, params, ctx):
        return (OK, self._node(graph, deps, T.CU_GRAPH_NODE_TYPE_MEMSET, dst=int(params.dst),
                               value=int(params.value)))

    def _new_address(self, graph, size) -> int:
        g = self.graphs[int(graph)]
        for i, (s, addr) in enumerate(g["reuse"]):
            if s == size:
                del g["reuse"][i]
                return addr
        addr = self._next_addr
        self._next_addr += max(size, 1 << 21)
        return addr

    def cuGraphAddMemAllocNode(self, graph, deps, count, params):
        size = int(params.bytesize)
        if int(params.poolProps.allocType) != int(_real.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED) or not size:
            return (INVALID_VALUE, None)
        addr = self._new_address(graph, size)
        params.dptr = addr
        return (OK, self._node(graph, deps, T.CU_GRAPH_NODE_TYPE_MEM_ALLOC, dptr=addr, size=size, freed=False))

    def cuGraphAddMemFreeNode(self, graph, deps, count, dptr):
        addr = int(dptr)
        g = self.graphs[int(graph)]
        live = [n for n in g["nodes"] if self.nodes[n]["type"] == T.CU_GRAPH_NODE_TYPE_MEM_ALLOC
                and self.nodes[n]["dptr"] == addr and not self.nodes[n]["freed"]]
        if not live:
            return (INVALID_VALUE, None)
        self.nodes[live[-1]]["freed"] = True
        g["reuse"].append((self.nodes[live[-1]]["size"], addr))
        return (OK, self._node(graph, deps, T.CU_GRAPH_NODE_TYPE_MEM_FREE, dptr=addr))

    def cuGraphMemAllocNodeGetParams(self, node):
        n = self.nodes[int(node)]
        p = _real.CUDA_MEM_ALLOC_NODE_PARAMS()
        p.bytesize, p.dptr = n["size"], n["dptr"]
        return (OK, p)

    def cuGraphMemFreeNodeGetParams(self, node):
        return (OK, _real.CUdeviceptr(self.nodes[int(node)]["dptr"]))

    def cuGraphNodeGetType(self, node):
        return (OK, self.nodes[int(node)]["type"])

    def cuGraphKernelNodeGetParams(self, node):
        return (OK, self.nodes[int(node)]["params"])

    def cuGraphGetNodes(self, graph, count):
        nodes = [_real.CUgraphNode(h) for h in self.graphs[int(graph)]["nodes"]]
        return (OK, nodes[:count] if count else None, len(nodes))

    def cuGraphGetEdges(self, graph, count):
        edges = self.graphs[int(graph)]["edges"]
        if not count:
            return (OK, None, None, None, len(edges))
        return (OK, [_real.CUgraphNode(a) for a, _ in edges], [_real.CUgraphNode(b) for _, b in edges],
                [_real.CUgraphEdgeData() for _ in edges], len(edges))

    def cuModuleGetFunction(self, module, name):
        r = super().cuModuleGetFunction(module, name)
        self.func_names[r[1]] = name.decode() if isinstance(name, bytes) else str(name)
        return r

    def cuFuncGetName(self, func):
        return (OK, self.func_names.get(int(func), "?").encode())

    def cuGetErrorString(self, status):
        return (OK, f"fake {getattr(status, 'name', status)}".encode())

    # --- capture --------------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        r = super().cuGraphCreate(0)
        self.graphs[r[1]] = {"nodes": [], "edges": [], "reuse": []}
        self.capturing[int(stream)] = {"graph": r[1], "last": None}
        return (OK,)

    def cuStreamEndCapture(self, stream):
        cap = self.capturing.pop(int(stream), None)
        return (OK, cap["graph"]) if cap else super().cuStreamEndCapture(stream)

    def _captured(self, stream, kind, **info):
        cap = self.capturing[int(stream)]
        deps = [cap["last"]] if cap["last"] else []
        if kind == "alloc":
            p = _real.CUDA_MEM_ALLOC_NODE_PARAMS()
            p.poolProps.allocType = _real.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
            p.bytesize = info["size"]
            r = self.cuGraphAddMemAllocNode(cap["graph"], deps, len(deps), p)
            cap["last"] = r[1]
            return (r[0], int(p.dptr))
        if kind == "free":
            r = self.cuGraphAddMemFreeNode(cap["graph"], deps, len(deps), info["dptr"])
        else:
            r = (OK, self._node(cap["graph"], deps, T.CU_GRAPH_NODE_TYPE_KERNEL, params=info["params"]))
        cap["last"] = r[1]
        return (r[0],)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, args, extra):
        if int(stream) in self.capturing:
            p = _real.CUDA_KERNEL_NODE_PARAMS()
            p.func = int(f)
            p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY, p.blockDimZ = gx, gy, gz, bx, by, bz
            return self._captured(stream, "kernel", params=p)
        return (OK,)

    def cuMemAllocAsync(self, size, stream):
        if int(stream) in self.capturing:
            return self._captured(stream, "alloc", size=int(size))
        return (OK, self._make("async memory"))

    def cuMemFreeAsync(self, dptr, stream):
        if int(stream) in self.capturing:
            return self._captured(stream, "free", dptr=int(dptr))
        return self._free_graph_allocation(int(dptr))

    def _free_graph_allocation(self, addr):
        if addr in self.graph_allocs:
            del self.graph_allocs[addr]
            for e in self.execs.values():
                e["outstanding"].discard(addr)
            return (OK,)
        if self.made.get(addr) == "async memory":
            return self._release(addr, "async memory")
        return (INVALID_VALUE,)

    def cuMemFree(self, h):
        if int(h) in self.graph_allocs:
            return self._free_graph_allocation(int(h))
        r = super().cuMemFree(h)
        if r[0] == OK:
            self.alloc_sizes.pop(int(h), None)
        return r

    def cuMemAlloc(self, nbytes):
        r = super().cuMemAlloc(nbytes)
        self.alloc_sizes[r[1]] = int(nbytes)
        return r

    FREE_TOTAL = 1 << 33

    def cuMemGetInfo(self):
        self._account()
        return (OK, self.FREE_TOTAL - sum(self.alloc_sizes.values()) - self.reserved, 1 << 34)

    # --- execs ----------------------------------------------------------------------------------------------------
    def _memory_nodes(self, graph):
        return [self.nodes[n] for n in self.graphs[int(graph)]["nodes"]
                if self.nodes[n]["type"] in (T.CU_GRAPH_NODE_TYPE_MEM_ALLOC, T.CU_GRAPH_NODE_TYPE_MEM_FREE)]

    def cuGraphInstantiate(self, graph, flags):
        graph = int(graph)
        if graph in self.graphs and self._memory_nodes(graph):
            if any(e["graph"] == graph and e["alive"] for e in self.execs.values()):
                return (INVALID_VALUE, None)
        r = super().cuGraphInstantiate(graph, flags)
        auto = bool(int(flags) & int(_real.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
        self.execs[r[1]] = {"graph": graph, "auto_free": auto, "launched": False, "outstanding": set(),
                            "alive": True}
        return r

    def cuGraphExecDestroy(self, h):
        e = self.execs.get(int(h))
        mapped = self._mapped(e) if e and e["alive"] else 0
        r = super().cuGraphExecDestroy(h)
        if r[0] == OK and e is not None:
            e["alive"] = False
            self.retained += mapped  # back in the pool, still mapped: used until a trim
        return r

    def cuGraphLaunch(self, exe, stream):
        self.calls.append("cuGraphLaunch")
        e = self.execs.get(int(exe))
        if e is None or e["graph"] not in self.graphs:
            return (OK,)
        if e["outstanding"]:
            if not e["auto_free"]:
                return (INVALID_VALUE,)
            for addr in list(e["outstanding"]):
                self._free_graph_allocation(addr)
        e["launched"] = True
        for n in self.graphs[e["graph"]]["nodes"]:
            info = self.nodes[n]
            if info["type"] == T.CU_GRAPH_NODE_TYPE_MEMSET:
                self.words[info["dst"]] = info["value"]
            elif info["type"] == T.CU_GRAPH_NODE_TYPE_MEM_ALLOC and not info["freed"]:
                self.graph_allocs[info["dptr"]] = info["size"]
                e["outstanding"].add(info["dptr"])
        self._account()
        return (OK,)

    # --- events (the timers run; their figures mean nothing here) ----------------------------------------------------
    def cuEventSynchronize(self, event):
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        self._elapsed = getattr(self, "_elapsed", 0.0) + 0.001
        return (OK, self._elapsed)

    # --- device memory as 32-bit patterns -------------------------------------------------------------------------
    def cuMemsetD32Async(self, dst, value, count, stream):
        self.words[int(dst)] = int(value)
        return (OK,)

    def cuMemcpyDtoHAsync(self, dst, src, nbytes, stream):
        if int(src) in self.words:
            n = int(nbytes) // 4
            (ctypes.c_uint32 * n).from_address(int(dst))[:] = [self.words[int(src)]] * n
        return (OK,)

    # --- the footprint --------------------------------------------------------------------------------------------
    def _mapped(self, e) -> int:
        if not e["launched"]:
            return 0
        return sum({m["dptr"]: m["size"] for m in self._memory_nodes(e["graph"]) if "size" in m}.values())

    def used(self) -> int:
        mapped = sum(self._mapped(e) for e in self.execs.values() if e["alive"])
        leftover = sum(s for a, s in self.graph_allocs.items()
                       if not any(a in e["outstanding"] and e["alive"] for e in self.execs.values()))
        return mapped + leftover + self.retained

    def _account(self):
        used = self.used()
        self.reserved = max(self.reserved, used)
        self.high["used"] = max(self.high["used"], used)
        self.high["reserved"] = max(self.high["reserved"], self.reserved)

    def cuDeviceGetGraphMemAttribute(self, device, attr):
        self._account()
        name = attr.name.replace("CU_GRAPH_MEM_ATTR_", "")
        value = {"USED_MEM_CURRENT": self.used(), "USED_MEM_HIGH": self.high["used"],
                 "RESERVED_MEM_CURRENT": self.reserved, "RESERVED_MEM_HIGH": self.high["reserved"]}[name]
        return (OK, _real.cuuint64_t(value))

    def cuDeviceSetGraphMemAttribute(self, device, attr, value):
        if not hasattr(value, "getPtr") or int(value) != 0:
            return (INVALID_VALUE,)
        self.high["used" if "USED" in attr.name else "reserved"] = 0
        return (OK,)

    def cuDeviceGraphMemTrim(self, device):
        self.retained = 0
        self.reserved = self.used()
        return (OK,)


def install(monkeypatch) -> FakeMemDriver:
    """cugraphlab talking to a FakeMemDriver (as conftest's ``fake_driver`` fixture does with FakeDriver)."""
    fake = FakeMemDriver()
    patch_driver(monkeypatch, fake)
    return fake
