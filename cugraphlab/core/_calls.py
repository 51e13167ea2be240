"""The single door to cuda.bindings: every driver and NVRTC function is fetched here.

``driver_fn(name)`` returns the binding itself, or, while tracing is on, a wrapper that records the call, its key
arguments, result and duration. Objects look their functions up once when made, so a timed loop pays nothing when
tracing is off. ``cu(name, *args)`` calls and checks in one step for everything outside hot loops.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

from .errors import (
    DriverMismatchError,
    LinkError,
    MissingDriverFunctionError,
    MissingPackageError,
    UnsupportedError,
    check,
    check_nvrtc,
)

__all__ = ["driver_module", "nvrtc_module", "nvjitlink_module", "driver_fn", "nvrtc_fn", "jit_fn", "cu", "nv", "jit",
           "Tracer", "tracing", "tracer",
           "bindings_version", "bindings_cuda_version", "bindings_major", "driver_cuda_version", "extra_for_driver",
           "check_driver_matches_bindings", "require_driver", "require_bindings", "require_conditional",
           "require_conditional_branches", "require_pdl", "graph_add_node", "graph_edges", "stream_capture_info",
           "stream_set_capture_dependencies", "func_name", "versions_fit", "host_fn", "libcuda",
           "launch_host_func", "kernel_node_priority_attr", "ctx_create", "add_observer", "remove_observer",
           "observing"]

_driver = None
_nvrtc = None
_nvjitlink = None

#: What to install where cuda-bindings is missing: the package's own lean dependencies (the bindings and NVRTC of one
#: CUDA major), not cuda-bindings' ``all`` extra (nvJitLink, NVVM, cuFile, nvfatbin: twice the size, unused).
BINDINGS_INSTALL = ("reinstall cugraphlab, which brings cuda-bindings and NVRTC: pip install cugraphlab "
                    "(or 'cugraphlab[cu12]' for a CUDA 12 driver)")


def driver_module():
    """cuda.bindings.driver, imported on first use; NoDeviceError when cuda-bindings is not installed."""
    global _driver
    if _driver is None:
        try:
            from cuda.bindings import driver
        except ImportError as e:  # pragma: no cover - the package depends on cuda-bindings
            raise MissingPackageError(f"cuda-bindings is not installed: {BINDINGS_INSTALL}") from e
        _driver = driver
    return _driver


def nvrtc_module():
    """cuda.bindings.nvrtc, imported on first use."""
    global _nvrtc
    if _nvrtc is None:
        try:
            from cuda.bindings import nvrtc
        except ImportError as e:  # pragma: no cover
            raise MissingPackageError(f"cuda-bindings is not installed: {BINDINGS_INSTALL}") from e
        _nvrtc = nvrtc
    return _nvrtc


NVJITLINK_INSTALL = ("install cugraphlab's devlaunch extra: pip install 'cugraphlab[devlaunch]' (CUDA 13) or "
                     "'cugraphlab[cu12,devlaunch-cu12]' (CUDA 12), which bring nvidia-nvjitlink (-cu12) and the CUDA "
                     "runtime wheel")


def nvjitlink_module():
    """cuda.bindings.nvjitlink, imported on first use; UnsupportedError (with what to install) when absent."""
    global _nvjitlink
    if _nvjitlink is None:
        try:
            from cuda.bindings import nvjitlink
        except ImportError as e:
            raise UnsupportedError(f"nvJitLink: cuda.bindings.nvjitlink is not importable ({e}): "
                                   f"{NVJITLINK_INSTALL}") from e
        _nvjitlink = nvjitlink
    return _nvjitlink


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


# --- observers: called after each driver call made through this door (the capture doctor watches with one) -------
# An observer is ``fn(name, args, result, frame)``: ``result`` is the binding's tuple (or the exception it raised),
# ``frame`` the Python frame that made the call (cugraphlab's own, often: observers walk outward themselves). Like the
# tracer, it sees the calls of ``cu()`` and of functions looked up with ``driver_fn`` while it is registered;
# functions looked up before (a Launch made earlier keeps its binding) are not seen. With none registered, nothing
# here costs anything.
_observers: list[Callable] = []


def add_observer(fn: Callable) -> None:
    """Call ``fn(name, args, result, frame)`` after every driver call made through this door from now on."""
    if fn not in _observers:
        _observers.append(fn)


def remove_observer(fn: Callable) -> None:
    """Stop calling ``fn`` (no error if it was not registered)."""
    try:
        _observers.remove(fn)
    except ValueError:
        pass


def observing() -> bool:
    """Whether any observer is registered."""
    return bool(_observers)


def _observed(name: str, fn: Callable) -> Callable:
    def observed(*args):
        try:
            result = fn(*args)
        except Exception as e:
            _notify(name, args, e, sys._getframe(1))
            raise
        _notify(name, args, result, sys._getframe(1))
        return result

    observed.__name__ = name
    return observed


def _notify(name: str, args: tuple, result, frame) -> None:
    for obs in tuple(_observers):
        obs(name, args, result, frame)


def driver_fn(name: str) -> Callable:
    """The driver function ``name`` (traced while tracing is on, observed while an observer is registered)."""
    fn = getattr(driver_module(), name)
    if _tracer is not None:
        fn = _tracer.wrap(name, fn)
    return fn if not _observers else _observed(name, fn)


def nvrtc_fn(name: str) -> Callable:
    """The NVRTC function ``name`` (traced while tracing is on)."""
    fn = getattr(nvrtc_module(), name)
    return fn if _tracer is None else _tracer.wrap(name, fn)


def jit_fn(name: str) -> Callable:
    """The nvJitLink function ``name`` of cuda.bindings.nvjitlink (``create``, ``add_data``, ...; traced while
    tracing is on, as ``nvJitLink<Name>``)."""
    fn = getattr(nvjitlink_module(), name)
    api = "nvJitLink" + "".join(part.capitalize() for part in name.split("_"))
    return fn if _tracer is None else _tracer.wrap(api, fn)


def _jit_log(handle) -> str:
    """The error log of an nvJitLink handle, or "" when none can be read."""
    try:
        j = nvjitlink_module()
        size = j.get_error_log_size(handle)
        if size <= 1:
            return ""
        buf = bytearray(size)
        j.get_error_log(handle, buf)
        return bytes(buf).rstrip(b"\0").decode(errors="replace")
    except Exception:
        return ""


def jit(name: str, *args, inputs: tuple[str, ...] = (), options=()):
    """Call nvJitLink function ``name`` (cuda.bindings.nvjitlink raises rather than returning a status).

    A failure becomes LinkError naming the call, the nvJitLinkResult and the link's error log (read from the handle,
    the first argument of every call but ``create`` and ``version``); ``inputs``/``options`` only enrich the message.
    A missing libnvJitLink becomes UnsupportedError with what to install.
    """
    j = nvjitlink_module()
    try:
        return jit_fn(name)(*args)
    except j.nvJitLinkError as e:
        status = getattr(e, "status", None)
        try:
            result = j.Result(status).name
        except Exception:
            result = str(e)
        log = _jit_log(args[0]) if args and name not in ("create", "version") else ""
        raise LinkError(name, f"{result} ({status})" if status is not None else result, log, inputs,
                        options) from e
    except (RuntimeError, OSError) as e:  # the library itself: cuda.pathfinder's DynamicLibNotFoundError etc.
        if "not found" in str(e).lower() or type(e).__name__.endswith("NotFoundError"):
            raise UnsupportedError(f"nvJitLink: libnvJitLink could not be loaded: {NVJITLINK_INSTALL}") from e
        raise


def cu(name: str, *args):
    """Call driver function ``name`` and check its result.

    A function the bindings know but this driver lacks (the bindings raise a RuntimeError for it, see
    ``_missing_in_driver``) becomes one MissingDriverFunctionError (an UnsupportedError: one line, exit 2 in the
    CLI) naming the function and the driver's CUDA version.
    """
    try:
        result = driver_fn(name)(*args)
    except RuntimeError as e:
        if _missing_in_driver(e):
            raise missing_function_error(name) from e
        raise
    return check(result, name)


def missing_function_error(name: str) -> MissingDriverFunctionError:
    """The one-line error for driver function ``name`` that this driver does not export."""
    try:
        driver = f"CUDA {_fmt(driver_cuda_version())}"
    except Exception:  # the error must not fail while it is being made
        driver = "an unknown CUDA version"
    return MissingDriverFunctionError(
        name, f"{name}: this NVIDIA driver ({driver}) does not have this function, which cuda-bindings "
              f"{bindings_version()} know: it needs a newer driver")


def nv(name: str, *args):
    """Call NVRTC function ``name`` and check its result."""
    return check_nvrtc(nvrtc_fn(name)(*args), name)


def _short_args(args: tuple) -> str:
    parts = []
    for a in args:
        if type(a).__module__.startswith("cuda.bindings") and not hasattr(a, "__int__"):
            # a driver struct: its repr reads every union member, and a conditional node's params hold a pointer
            # (phGraph_out) that another member's view would dereference as garbage; its name says enough
            parts.append(f"<{type(a).__name__}>")
        elif isinstance(a, (bytes, bytearray)) and len(a) > 32:
            parts.append(f"<{len(a)} bytes>")
        elif isinstance(a, (list, tuple)) and len(a) > 6:
            parts.append(f"[{len(a)} items]")
        else:
            r = repr(a)
            parts.append(r if len(r) <= 48 else r[:45] + "...")
    return ", ".join(parts)


# --- what differs between cuda-bindings 12.x and 13.x lives below this line, and nowhere else -----------------------
# Checked in both 12.9.10 and 13.5.0 (tools/introspect.py, tools/structs.py): every other call and struct the
# package uses has the same name, arguments, return tuple and fields in both. What differs:
#   cuGraphAddNode    12: (graph, deps, n, params)            13: (graph, deps, edgeData, n, params)
#                     12.x spells the 13 form cuGraphAddNode_v2 (driver 12.3+; plain form from driver 12.2).
#   cuGraphGetEdges   12: (err, from, to, n)                  13: (err, from, to, edgeData, n)
#                     12.x spells the 13 form cuGraphGetEdges_v2 (driver 12.3+; the plain form answers
#                     CUDA_ERROR_LOSSY_QUERY where an edge carries data, e.g. a programmatic edge).
#   cuStreamGetCaptureInfo  12: (err, status, id, graph, deps, n)   13: (err, status, id, graph, deps, edgeData, n)
#                     12.x spells the 13 form cuStreamGetCaptureInfo_v3 (driver 12.3+).
#   cuStreamUpdateCaptureDependencies  12: (stream, deps, n, flags)  13: (stream, deps, edgeData, n, flags)
#                     12.x spells the 13 form cuStreamUpdateCaptureDependencies_v2 (driver 12.3+).
#   cuCtxCreate       12: (flags, dev)                        13: (ctxCreateParams or None, flags, dev)
#   a function the driver lacks (cuFuncGetName or the _v2 forms before 12.3; cuGraphNodeGetParams, which
#   cuda-bindings 13.3 know and a CUDA 13.0 driver does not export) raises a RuntimeError at the call, not a
#   CUresult (_missing_in_driver knows its two forms); cu() turns it into MissingDriverFunctionError, one line.
#   Every driver function the package names is checked against CUDA 13.0's driver API by
#   tests/package/test_driver_functions.py: one newer than 13.0 must be listed there with its gate.
#   host functions    both: CUDA_HOST_NODE_PARAMS.fn takes a CUhostFn built from the int address (the raw pointer
#                     is stored as is); cuLaunchHostFunc (12 and 13) routes the pointer through a one-shot
#                     wrapper of the bindings that frees its data after the first call (cuda-python issue 790), so
#                     a captured host function would be called once and then through freed memory: it goes to
#                     libcuda's own cuLaunchHostFunc here (launch_host_func).
#   kernel node attrs 13: CUkernelNodeAttrID is its own enum (CU_LAUNCH_ATTRIBUTE_* names); both have the
#                     module constant CU_KERNEL_NODE_ATTRIBUTE_PRIORITY (8): kernel_node_priority_attr.
def bindings_version() -> str:
    """cuda-bindings' own version, e.g. "12.9.10" (the module's, which is the one imported)."""
    from cuda import bindings

    return str(getattr(bindings, "__version__", "0"))


def bindings_cuda_version() -> tuple[int, int]:
    """The CUDA version whose headers the installed bindings were generated from, e.g. (12, 9) or (13, 5)."""
    v = getattr(driver_module(), "CUDA_VERSION", None)  # 12090 / 13050: present in every 12.x and 13.x
    if isinstance(v, int) and v >= 1000:
        return v // 1000, (v % 1000) // 10
    m = re.match(r"(\d+)\.(\d+)", bindings_version())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def bindings_major() -> int:
    """12 or 13: which CUDA major the installed cuda-bindings speak."""
    return bindings_cuda_version()[0]


def driver_cuda_version() -> tuple[int, int]:
    """The CUDA version the driver supports, (major, minor), e.g. (12, 4); needs cuInit to have run."""
    v = cu("cuDriverGetVersion")
    return v // 1000, (v % 1000) // 10


def _fmt(v: tuple[int, int]) -> str:
    return "%d.%d" % tuple(v)


def _pair(version) -> tuple[int, int]:
    """(major, minor) of a version pair given as any sequence (a list from JSON, the bindings' tuple)."""
    major, minor = version
    return int(major), int(minor)


def extra_for_driver(driver: tuple[int, int]) -> str | None:
    """The install extra that suits a driver: "cu13" for CUDA 13+, "cu12" for 12.x, None for older ones."""
    return "cu13" if driver[0] >= 13 else "cu12" if driver[0] == 12 else None


def check_driver_matches_bindings(driver: tuple[int, int] | None = None,
                                  nvrtc: tuple[int, int] | None = None) -> None:
    """DriverMismatchError when the driver cannot serve these bindings or this NVRTC (call right after cuInit).

    Newer bindings than the driver (cu13 bindings on a 12.x driver) fail in odd places later, so stop at once with
    the install that fits. Older bindings on a newer driver (cu12 on a 13 driver) are fine: drivers run older
    CUDA majors. NVRTC is checked too: a venv switched from cu13 to cu12 keeps the nvidia-cuda-nvrtc 13 wheel, and
    cuda.pathfinder prefers it, so cu12 bindings end up with NVRTC 13, whose code a 12.x driver cannot load.
    """
    driver = _pair(driver or driver_cuda_version())
    have = bindings_cuda_version()
    if driver[0] < 12:
        raise DriverMismatchError(
            f"this NVIDIA driver supports CUDA {_fmt(driver)}; cugraphlab needs a driver for CUDA 12 or newer "
            f"(r525+): update the driver, then pip install 'cugraphlab[cu12]'")
    if have[0] > driver[0]:
        raise DriverMismatchError(
            f"cuda-bindings {bindings_version()} (CUDA {have[0]}) needs a driver for CUDA {have[0]}.0 or newer, "
            f"and this driver supports CUDA {_fmt(driver)}: pip install 'cugraphlab[{extra_for_driver(driver)}]' "
            f"(or update the driver)")
    if nvrtc is None:
        try:
            nvrtc = _pair(nv("nvrtcVersion"))
        except Exception:  # no NVRTC at all: compiling will say so itself
            return
    if nvrtc[0] > driver[0]:
        raise DriverMismatchError(
            f"NVRTC {_fmt(nvrtc)} makes code that this driver (CUDA {_fmt(driver)}) cannot load, beside "
            f"cuda-bindings {bindings_version()}: pip uninstall nvidia-cuda-nvrtc (left by a cu13 install), "
            f"or use a fresh venv with pip install 'cugraphlab[{extra_for_driver(driver)}]'")


# --- feature gates: UnsupportedError names the feature and what it needs -------------------------------------------
def require_driver(feature: str, need: tuple[int, int], driver: tuple[int, int] | None = None) -> None:
    driver = _pair(driver or driver_cuda_version())
    if driver < tuple(need):
        raise UnsupportedError(f"{feature}: needs a driver for CUDA {_fmt(need)} or newer; this one supports "
                               f"CUDA {_fmt(driver)}")


def require_bindings(feature: str, *names: str) -> None:
    d = driver_module()
    missing = [n for n in names if not hasattr(d, n)]
    if missing:
        raise UnsupportedError(f"{feature}: needs {', '.join(missing)}, which cuda-bindings {bindings_version()} "
                               f"lacks: pip install -U 'cugraphlab[cu{bindings_major()}]'")


CONDITIONAL_NEEDS = (12, 3)  # WHILE/IF nodes, cudaGraphSetConditional, CU_GRAPH_COND_ASSIGN_DEFAULT
BRANCHES_NEEDS = (12, 8)  # IF nodes with an ELSE body (size 2) and SWITCH nodes (size K)
EDGE_DATA_NEEDS = (12, 3)  # cuGraphAddNode/GetEdges with edge data (programmatic edges in graphs)
FUNC_NAME_NEEDS = (12, 3)  # cuFuncGetName
PDL_ARCH = (9, 0)


def require_conditional(driver: tuple[int, int] | None = None, *, with_driver: bool = True) -> None:
    """UnsupportedError unless the bindings (and, ``with_driver``, the driver) can build WHILE/IF conditional
    nodes; ``driver`` defaults to asking it."""
    add = "cuGraphAddNode" if bindings_major() >= 13 else "cuGraphAddNode_v2"
    require_bindings("conditional graph nodes", "cuGraphConditionalHandleCreate", add, "CUgraphConditionalNodeType",
                     "CU_GRAPH_COND_ASSIGN_DEFAULT")
    if with_driver:
        require_driver("conditional graph nodes", CONDITIONAL_NEEDS, driver)


def require_conditional_branches(driver: tuple[int, int] | None = None, *, with_driver: bool = True) -> None:
    """UnsupportedError unless the bindings (and, ``with_driver``, the driver) can build IF/ELSE (two bodies) and
    SWITCH conditional nodes: CUDA 12.8 or newer (cuDriverGetVersion >= 12080)."""
    feature = "IF/ELSE and SWITCH conditional nodes"
    require_conditional(driver, with_driver=False)
    if not hasattr(driver_module().CUgraphConditionalNodeType, "CU_GRAPH_COND_TYPE_SWITCH"):
        raise UnsupportedError(f"{feature}: need CU_GRAPH_COND_TYPE_SWITCH, which cuda-bindings "
                               f"{bindings_version()} lacks: pip install -U 'cugraphlab[cu{bindings_major()}]'")
    if with_driver:
        require_driver(feature, BRANCHES_NEEDS, driver)


def require_pdl(compute_capability: tuple[int, int], arch: str = "", *, graphs: bool = False,
                driver: tuple[int, int] | None = None) -> None:
    """UnsupportedError unless the GPU (sm_90+) and, for graphs with programmatic edges, the driver can do PDL."""
    if tuple(compute_capability) < PDL_ARCH:
        arch = arch or "sm_%d%d" % tuple(compute_capability)
        raise UnsupportedError(f"programmatic dependent launch: needs sm_90 or newer; this GPU is {arch}")
    require_bindings("programmatic dependent launch", "cuLaunchKernelEx", "CUlaunchAttribute")
    if graphs:
        require_driver("programmatic dependent launch in graphs", EDGE_DATA_NEEDS, driver)


# --- calls whose form differs -------------------------------------------------------------------------------------
# How the bindings say the driver lacks a function: cydriver raises a plain RuntimeError('Function "cuXxx" not
# found') (cuda-bindings 13.3.1 on a CUDA 13.0 driver, for cuGraphNodeGetParams); the generated _internal layers
# raise FunctionNotFoundError("function cuXxx is not found"), a RuntimeError subclass.
_NOT_FOUND = re.compile(r'\bfunction\s+"?\w+"?\s+(?:is\s+)?not\s+found', re.IGNORECASE)


def _missing_in_driver(e: Exception) -> bool:
    """True where the driver lacks the function called (it is older than the bindings): the bindings'
    FunctionNotFoundError or RuntimeError('Function "cuXxx" not found'), and the MissingDriverFunctionError that
    ``cu`` makes of either."""
    if isinstance(e, MissingDriverFunctionError) or type(e).__name__ == "FunctionNotFoundError":
        return True
    return isinstance(e, RuntimeError) and _NOT_FOUND.search(str(e)) is not None


def graph_add_node(graph, deps, params, edge_data=None):
    """cuGraphAddNode in the 13.x form (graph, dependencies, edge data, count, params); 12.x spells that form
    cuGraphAddNode_v2 (driver 12.3+). ``edge_data``: one CUgraphEdgeData per dependency, or None for plain edges.
    Returns the new node."""
    deps = list(deps or ())
    data = list(edge_data) if edge_data else None
    if data is not None and len(data) != len(deps):
        raise ValueError(f"edge_data has {len(data)} entries for {len(deps)} dependencies")
    if bindings_major() >= 13:
        return cu("cuGraphAddNode", graph, deps or None, data, len(deps), params)
    if hasattr(driver_module(), "cuGraphAddNode_v2"):
        # 12.x's binding wants one CUgraphEdgeData per dependency (13's takes None): zeroed ones are plain edges
        plain = data if data is not None else ([driver_module().CUgraphEdgeData() for _ in deps] or None)
        try:
            return cu("cuGraphAddNode_v2", graph, deps or None, plain, len(deps), params)
        except MissingDriverFunctionError:  # a 12.0-12.2 driver: the plain form below, without edge data
            pass
    if data is not None:  # bindings or driver older than 12.3: no edge data anywhere
        raise UnsupportedError(f"graph edges with data: need a driver for CUDA {_fmt(EDGE_DATA_NEEDS)} or newer")
    return cu("cuGraphAddNode", graph, deps or None, len(deps), params)  # the 12.2 form


def ctx_create(flags: int, device):
    """cuCtxCreate: a new context on ``device`` with scheduling ``flags`` (CU_CTX_SCHED_*), current on this thread
    (pushed on its context stack). 13.x takes the execution-affinity/CIG parameters first (None: a plain context).
    The caller owns it: cuCtxDestroy."""
    if bindings_major() >= 13:
        return cu("cuCtxCreate", None, int(flags), device)
    return cu("cuCtxCreate", int(flags), device)


def _edges(fn_name: str, graph, with_data: bool) -> list[tuple]:
    count = cu(fn_name, graph, 0)[-1]
    if not count:
        return []
    r = cu(fn_name, graph, count)
    count = r[-1]
    data = list(r[2])[:count] if with_data else [None] * count
    return list(zip(list(r[0])[:count], list(r[1])[:count], data))


def graph_edges(graph) -> list[tuple]:
    """The edges of a graph handle as (from_node, to_node, edge_data or None), in the driver's order.

    edge_data is a CUgraphEdgeData (.type: 0 default, 1 programmatic; .from_port, .to_port); None where the driver
    keeps none (before 12.3), which means a plain full dependency.
    """
    if bindings_major() >= 13:
        return _edges("cuGraphGetEdges", graph, True)
    if hasattr(driver_module(), "cuGraphGetEdges_v2"):
        try:  # the plain 12.x form would answer CUDA_ERROR_LOSSY_QUERY for a graph with programmatic edges
            return _edges("cuGraphGetEdges_v2", graph, True)
        except MissingDriverFunctionError:  # a 12.0-12.2 driver (r525-r535), which has no edge data
            pass
    return _edges("cuGraphGetEdges", graph, False)


def stream_capture_info(stream, *, raw: bool = False) -> tuple:
    """What a stream's capture is: (status, capture id, graph being captured into, current dependencies)
    (cuStreamGetCaptureInfo; CUDA Driver API, "Stream Management").

    ``status`` is a CUstreamCaptureStatus; graph and dependencies are only valid while the status is ACTIVE: the
    graph is the driver's (never destroy it), the dependencies are the nodes the next captured node will depend on.
    The 12-vs-13 difference (the binding's tuple) is in the table above: both forms end in the count, and the
    dependencies are the fifth item of each, so one unpacking serves both.

    Called through the door (checked, traced, observed) by default: graphs.capture_into. ``raw=True`` is for a
    caller that watches a capture (graphs.doctor): the binding itself is called, neither traced nor observed (an
    observer asking would see its own question), nothing is raised, and the CUresult comes first:
    (CUresult, status, id, graph, dependencies), with (CUresult, None, 0, None, []) when the query failed.
    """
    if raw:
        r = driver_module().cuStreamGetCaptureInfo(stream)
        if r[0] != 0:
            return (r[0], None, 0, None, [])
        return (r[0], *_capture_info(r[1:]))
    return _capture_info(cu("cuStreamGetCaptureInfo", stream))


def _capture_info(values: tuple) -> tuple:
    """(status, id, graph, deps) from the values after the CUresult, in either form (12: status, id, graph, deps,
    n; 13: status, id, graph, deps, edgeData, n)."""
    status, cid, graph, deps, n = values[0], values[1], values[2], values[3], values[-1]
    return status, int(cid or 0), graph, list(deps or ())[:int(n or 0)]


def stream_set_capture_dependencies(stream, deps) -> None:
    """Replace a capturing stream's dependency set with ``deps`` (cuStreamUpdateCaptureDependencies with
    CU_STREAM_SET_CAPTURE_DEPENDENCIES): what is captured next on ``stream`` comes after these nodes."""
    d = driver_module()
    deps = list(deps)
    flags = int(d.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    if bindings_major() >= 13:
        # one zeroed CUgraphEdgeData per dependency: plain (full) edges, and no None where a count is given
        cu("cuStreamUpdateCaptureDependencies", stream, deps, [d.CUgraphEdgeData() for _ in deps], len(deps), flags)
    else:
        cu("cuStreamUpdateCaptureDependencies", stream, deps, len(deps), flags)


def func_name(func) -> str | None:
    """A kernel's name from its CUfunction (cuFuncGetName, driver 12.3+), or None where the driver cannot say.

    Only cosmetic (node labels): callers show "?" for None rather than fail.
    """
    try:
        r = driver_fn("cuFuncGetName")(func)
    except (AttributeError, RuntimeError):
        return None
    if r[0] != 0 or r[1] is None:
        return None
    name = r[1]
    return name.decode(errors="replace") if isinstance(name, (bytes, bytearray)) else str(name)


_libcuda = None


def libcuda():
    """libcuda itself through ctypes (the library the bindings loaded), for the calls the bindings wrap in a way
    that does not fit (launch_host_func); UnsupportedError where it cannot be opened."""
    global _libcuda
    if _libcuda is None:
        import ctypes

        try:
            lib = ctypes.CDLL("libcuda.so.1")
            fn = lib.cuLaunchHostFunc
        except (OSError, AttributeError) as e:
            raise UnsupportedError(f"host functions in streams: libcuda.so.1 cannot be opened through ctypes ({e})")
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _libcuda = lib
    return _libcuda


def host_fn(address: int):
    """A CUhostFn for a C function pointer at ``address`` (CUDA_HOST_NODE_PARAMS.fn in 12.x and 13.x alike)."""
    return driver_module().CUhostFn(int(address))


def launch_host_func(stream, fn_address: int, user_data: int = 0) -> None:
    """cuLaunchHostFunc(stream, fn, userData) straight into libcuda: the driver stores ``fn_address`` and
    ``user_data`` themselves (inside a capture: in the host node), with no wrapper of the bindings in between.
    Traced, observed and checked like every other call."""
    raw = libcuda().cuLaunchHostFunc

    def call(stream_handle, fn, data):
        return (driver_module().CUresult(raw(int(stream_handle), int(fn), int(data))),)

    fn = call if _tracer is None else _tracer.wrap("cuLaunchHostFunc", call)
    if _observers:
        fn = _observed("cuLaunchHostFunc", fn)
    check(fn(stream, fn_address, user_data), "cuLaunchHostFunc")


def kernel_node_priority_attr():
    """The CUkernelNodeAttrID of a kernel node's priority (CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, 8 in 12.x and 13.x)."""
    d = driver_module()
    return d.CUkernelNodeAttrID(int(d.CU_KERNEL_NODE_ATTRIBUTE_PRIORITY))


# --- the record `cugraphlab info` shows --------------------------------------------------------------------------
def versions_fit(driver: tuple[int, int] | None = None, nvrtc: tuple[int, int] | None = None) -> dict:
    """Which CUDA each piece speaks and whether they suit each other; never raises (a report field).

    ``driver``/``nvrtc`` default to asking (driver: None when no driver answers, e.g. no GPU).
    """
    b = bindings_cuda_version()
    if nvrtc is None:
        try:
            nvrtc = _pair(nv("nvrtcVersion"))
        except Exception:
            nvrtc = None
    if driver is None:
        try:
            driver = driver_cuda_version()
        except Exception:
            driver = None
    problems = []
    if nvrtc is not None and nvrtc[0] != b[0]:
        problems.append(f"NVRTC {_fmt(nvrtc)} is not the CUDA {b[0]} that cuda-bindings {bindings_version()} "
                        f"expects (a venv switched between cu12 and cu13 keeps the other NVRTC wheel): use a fresh "
                        f"venv with pip install 'cugraphlab[cu{b[0]}]'")
    if driver is not None:
        try:
            check_driver_matches_bindings(driver, nvrtc or (0, 0))
        except DriverMismatchError as e:
            problems.append(str(e))
    return {
        "bindings": bindings_version(),
        "bindings_cuda": _fmt(b),
        "bindings_major": b[0],
        "nvrtc": _fmt(nvrtc) if nvrtc else None,
        "driver_cuda": _fmt(driver) if driver else None,
        "extra_for_driver": extra_for_driver(driver) if driver else None,
        "fit": (not problems) if driver is not None else None,  # None: no driver to judge against
        "problems": problems,
    }
