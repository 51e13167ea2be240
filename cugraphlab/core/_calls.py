"""The single door to cuda.bindings: every driver and NVRTC function is fetched here.

``driver_fn(name)`` returns the binding itself, or, while tracing is on, a wrapper that records the call, its key
arguments, result and duration. Objects look their functions up once when made, so a timed loop pays nothing when
tracing is off. ``cu(name, *args)`` calls and checks in one step for everything outside hot loops.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

from .errors import NoDeviceError, check, check_nvrtc

__all__ = ["driver_module", "nvrtc_module", "driver_fn", "nvrtc_fn", "cu", "nv", "Tracer", "tracing", "tracer",
           "bindings_major", "graph_edges", "graph_add_node"]

_driver = None
_nvrtc = None


def driver_module():
    """cuda.bindings.driver, imported on first use; NoDeviceError when cuda-bindings is not installed."""
    global _driver
    if _driver is None:
        try:
            from cuda.bindings import driver
        except ImportError as e:  # pragma: no cover - the package depends on cuda-bindings
            raise NoDeviceError(f"cuda-bindings is not importable ({e}): pip install 'cuda-bindings[all]'") from e
        _driver = driver
    return _driver


def nvrtc_module():
    """cuda.bindings.nvrtc, imported on first use."""
    global _nvrtc
    if _nvrtc is None:
        try:
            from cuda.bindings import nvrtc
        except ImportError as e:  # pragma: no cover
            raise NoDeviceError(f"cuda-bindings is not importable ({e}): pip install 'cuda-bindings[all]'") from e
        _nvrtc = nvrtc
    return _nvrtc


@dataclass
class TraceEntry:
    api: str
    args: str
    result: str
    ns: int


@dataclass
class Tracer:
    """Records driver/NVRTC calls in order; prints each line to ``stream`` when one is given."""

    stream: TextIO | None = None
    entries: list[TraceEntry] = field(default_factory=list)

    def record(self, api: str, args: tuple, result, ns: int) -> None:
        status = result[0] if isinstance(result, tuple) and result else result
        entry = TraceEntry(api, _short_args(args), getattr(status, "name", repr(status)), ns)
        self.entries.append(entry)
        if self.stream is not None:
            print(f"[trace] {ns / 1000:9.2f} us  {api}({entry.args}) -> {entry.result}", file=self.stream)

    def wrap(self, api: str, fn: Callable) -> Callable:
        perf = time.perf_counter_ns

        def traced(*args):
            t0 = perf()
            try:
                result = fn(*args)
            except Exception as e:
                self.record(api, args, type(e).__name__, perf() - t0)
                raise
            self.record(api, args, result, perf() - t0)
            return result

        traced.__name__ = api
        return traced


_tracer: Tracer | None = None


def tracer() -> Tracer | None:
    """The active tracer, or None."""
    return _tracer


class tracing:
    """Context manager (or plain call + ``stop()``) that turns the driver-call trace on.

    Objects made while it is on record their calls; objects made before keep untraced bindings.
    """

    def __init__(self, stream: TextIO | None = sys.stderr):
        global _tracer
        self._previous = _tracer
        self.tracer = Tracer(stream)
        _tracer = self.tracer

    def stop(self) -> Tracer:
        global _tracer
        _tracer = self._previous
        return self.tracer

    def __enter__(self) -> Tracer:
        return self.tracer

    def __exit__(self, *exc) -> None:
        self.stop()


def driver_fn(name: str) -> Callable:
    """The driver function ``name`` (traced while tracing is on)."""
    fn = getattr(driver_module(), name)
    return fn if _tracer is None else _tracer.wrap(name, fn)


def nvrtc_fn(name: str) -> Callable:
    """The NVRTC function ``name`` (traced while tracing is on)."""
    fn = getattr(nvrtc_module(), name)
    return fn if _tracer is None else _tracer.wrap(name, fn)


def cu(name: str, *args):
    """Call driver function ``name`` and check its result."""
    return check(driver_fn(name)(*args), name)


def nv(name: str, *args):
    """Call NVRTC function ``name`` and check its result."""
    return check_nvrtc(nvrtc_fn(name)(*args), name)


def _short_args(args: tuple) -> str:
    parts = []
    for a in args:
        if isinstance(a, (bytes, bytearray)) and len(a) > 32:
            parts.append(f"<{len(a)} bytes>")
        elif isinstance(a, (list, tuple)) and len(a) > 6:
            parts.append(f"[{len(a)} items]")
        else:
            r = repr(a)
            parts.append(r if len(r) <= 48 else r[:45] + "...")
    return ", ".join(parts)


# --- what differs between cuda-bindings 12.x and 13.x lives below this line, and nowhere else -----------------------
def bindings_major() -> int:
    """The CUDA major version the installed cuda-bindings were made for (12 or 13)."""
    from cuda import bindings

    return int(str(bindings.__version__).split(".")[0])


def graph_edges(graph) -> list[tuple]:
    """The edges of a graph handle as (from_node, to_node, edge_data or None), in the driver's order.

    cuda-bindings 13's cuGraphGetEdges returns edge data (dependency type and ports); 12.x has that form as
    cuGraphGetEdges_v2 and a plain cuGraphGetEdges without it.
    """
    d = driver_module()
    name = "cuGraphGetEdges" if bindings_major() >= 13 or not hasattr(d, "cuGraphGetEdges_v2") else \
        "cuGraphGetEdges_v2"
    count = cu(name, graph, 0)[-1]
    if not count:
        return []
    r = cu(name, graph, count)
    src, dst = list(r[0])[:count], list(r[1])[:count]
    data = list(r[2])[:count] if len(r) == 4 else [None] * count
    return list(zip(src, dst, data))


def graph_add_node(graph, deps, params, edge_data=None):
    """cuGraphAddNode with the 13.x argument order (graph, dependencies, edge data, count, params); 12.x calls the
    same form cuGraphAddNode_v2. Returns the new node."""
    d = driver_module()
    deps = list(deps)
    if bindings_major() >= 13:
        return cu("cuGraphAddNode", graph, deps or None, edge_data, len(deps), params)
    if hasattr(d, "cuGraphAddNode_v2"):
        return cu("cuGraphAddNode_v2", graph, deps or None, edge_data, len(deps), params)
    return cu("cuGraphAddNode", graph, deps or None, len(deps), params)
