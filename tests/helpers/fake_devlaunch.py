"""The fake driver (tests/helpers/fake_driver.py) taught what device graph launch needs: graphs that remember their nodes
(kind and kernel parameters), node types, child graphs, instantiate flags, and a relocatable build that skips NVRTC
and nvJitLink (the link itself is tested for real in tests/core/test_link.py where libcudadevrt.a is found)."""
from __future__ import annotations

from pathlib import Path

HELPERS = Path(__file__).resolve().parent
ROOT = HELPERS.parents[1]

from fake_driver import OK, FakeDriver, _real, patch_driver

KERNELS = ROOT / "kernels"


class DevlaunchFakeDriver(FakeDriver):
    """FakeDriver plus a node registry: ``nodes[graph] = [(node, kind, params)]``, ``flags[exec] = flags``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.nodes: dict[int, list] = {}
        self.kinds: dict[int, str] = {}
        self.flags: dict[int, int] = {}
        self.children: dict[int, int] = {}
        self.uploads: list[int] = []
        self.launches: list[tuple[int, int]] = []
        self.memsets: list[tuple] = []

    def _add(self, graph, kind, params=None):
        node = next(self._ids)
        self.nodes.setdefault(int(graph), []).append((node, kind, params))
        self.kinds[node] = kind
        return (OK, node)

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        return self._add(graph, "KERNEL", (int(params.func), int(params.kernelParams)))

    def cuGraphAddMemsetNode(self, graph, deps, count, params, ctx):
        return self._add(graph, "MEMSET")

    def add_foreign_node(self, graph, kind: str) -> int:
        """A node of another kind (HOST, EMPTY, EVENT_RECORD ...) as if made by a call not faked here."""
        return self._add(graph, kind)[1]

    def add_child_graph(self, graph, child) -> int:
        node = self._add(graph, "GRAPH")[1]
        self.children[node] = int(child)
        return node

    def cuGraphChildGraphNodeGetGraph(self, node):
        return (OK, self.children[int(node)])

    def cuGraphGetNodes(self, graph, count):
        nodes = [n for n, _k, _p in self.nodes.get(int(graph), [])]
        if not count:
            return (OK, None, len(nodes))
        return (OK, nodes[:count], len(nodes))

    def cuGraphNodeGetType(self, node):
        return (OK, getattr(_real.CUgraphNodeType, "CU_GRAPH_NODE_TYPE_" + self.kinds[int(node)]))

    def cuGraphInstantiate(self, graph, flags):
        r = super().cuGraphInstantiate(graph, flags)
        self.flags[r[1]] = int(flags)
        return r

    def cuGraphUpload(self, exe, stream):
        self.uploads.append(int(exe))
        return (OK,)

    def cuGraphLaunch(self, exe, stream):
        self.launches.append((int(exe), int(stream)))
        return (OK,)

    def cuMemsetD32Async(self, dst, value, count, stream):
        self.memsets.append((int(dst), int(value), int(count)))
        return (OK,)

    def cuDeviceGetAttribute(self, attr, dev):
        name = attr.name.replace("CU_DEVICE_ATTRIBUTE_", "")
        if name == "UNIFIED_ADDRESSING":
            return (OK, 1)
        return super().cuDeviceGetAttribute(attr, dev)


def install(monkeypatch, fake=None):
    """cugraphlab talking to a DevlaunchFakeDriver, kernel sources read from this tree's kernels/, and the
    relocatable build faked (no libcudadevrt.a needed). Returns the fake."""
    from cugraphlab.core import link, sources
    from cugraphlab.core.program import Compiled

    fake = fake or DevlaunchFakeDriver()
    patch_driver(monkeypatch, fake)
    monkeypatch.setattr(sources, "kernel_dir", lambda: KERNELS)
    monkeypatch.setattr(link, "find_cudadevrt", lambda: "/nonexistent/libcudadevrt.a")

    def fake_build(source, name, *, arch, headers=None, options=(), lto=True, cache=None):
        return Compiled(name, "cubin", arch, b"\x7fELF fake linked cubin", "", {})

    monkeypatch.setattr(link, "build_relocatable", fake_build)
    return fake
