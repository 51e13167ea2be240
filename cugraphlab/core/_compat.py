"""Which CUDA each piece speaks, whether they fit, and the feature gates (a room of the door to cuda.bindings).

The bindings' CUDA version and major, the driver's, the start-up check that refuses a driver these bindings (or this
NVRTC) cannot serve, ``versions_fit`` (the record ``cugraphlab info`` shows), and the gates that refuse a feature in
one line naming what it needs (``bindings_version`` and ``driver_cuda_version`` live in the door, whose own errors
name them). Import from ``core._calls``, which gathers the rooms. Driver and NVRTC calls go through the door
(``door.cu``, ``door.nv``), looked up at call time, so the tests' stand-ins there reach them.
"""
from __future__ import annotations

import re

from . import _door as door
from ._door import _fmt, bindings_version, driver_cuda_version
from .errors import DriverMismatchError, UnsupportedError

__all__ = ["bindings_cuda_version", "bindings_major", "extra_for_driver",
           "check_driver_matches_bindings", "require_driver", "require_bindings", "require_conditional",
           "require_conditional_branches", "require_pdl", "versions_fit",
           "CONDITIONAL_NEEDS", "BRANCHES_NEEDS", "EDGE_DATA_NEEDS", "FUNC_NAME_NEEDS", "PDL_ARCH"]


# --- what differs between cuda-bindings 12.x and 13.x lives here and in core._shims, and nowhere else -------------
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
def bindings_cuda_version() -> tuple[int, int]:
    """The CUDA version whose headers the installed bindings were generated from, e.g. (12, 9) or (13, 5)."""
    v = getattr(door.driver_module(), "CUDA_VERSION", None)  # 12090 / 13050: present in every 12.x and 13.x
    if isinstance(v, int) and v >= 1000:
        return v // 1000, (v % 1000) // 10
    m = re.match(r"(\d+)\.(\d+)", bindings_version())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def bindings_major() -> int:
    """12 or 13: which CUDA major the installed cuda-bindings speak.

    Returns
    -------
    int
        The major of the CUDA version the bindings were generated from.

    Raises
    ------
    MissingPackageError
        cuda-bindings is not installed.
    """
    return bindings_cuda_version()[0]


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
            nvrtc = _pair(door.nv("nvrtcVersion"))
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
    d = door.driver_module()
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
    if not hasattr(door.driver_module().CUgraphConditionalNodeType, "CU_GRAPH_COND_TYPE_SWITCH"):
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



# --- the record `cugraphlab info` shows --------------------------------------------------------------------------
def versions_fit(driver: tuple[int, int] | None = None, nvrtc: tuple[int, int] | None = None) -> dict:
    """Which CUDA each piece speaks and whether they suit each other; never raises (a report field).

    ``driver``/``nvrtc`` default to asking (driver: None when no driver answers, e.g. no GPU).
    """
    b = bindings_cuda_version()
    if nvrtc is None:
        try:
            nvrtc = _pair(door.nv("nvrtcVersion"))
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


