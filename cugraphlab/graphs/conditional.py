"""Conditional graph nodes: a loop (WHILE) or a branch (IF) decided on the GPU, with no trip back to the host.

A conditional node owns a body graph and is controlled by a *handle*, a small integer condition that kernels set with
the device builtin ``cudaGraphSetConditional(handle, value)``. A WHILE node runs its body as long as the condition is
non-zero (checked when the node starts and after every body run); an IF node runs its body once when it is non-zero.

    handle = cuGraphConditionalHandleCreate(graph, ctx, defaultLaunchValue, flags)
    node = cuGraphAddNode(graph, deps, [edge data,] count, CUgraphNodeParams{type=CONDITIONAL, WHILE|IF, handle})
    body = params.conditional.phGraph_out[0]      # the body graph, owned by the node: never destroyed on its own

Needs a driver and bindings for CUDA 12.3 or newer. Kernels that call ``cudaGraphSetConditional`` compile with NVRTC
against ``cuda_device_runtime_api.h`` where one matching the NVRTC in use is found, else with the two declarations
the header would give (same cubin). CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core._calls import cu, driver_module, graph_add_node
from ..core.errors import UnsupportedError

__all__ = ["HEADER", "cuda_include_dir", "conditional_options", "require_conditional", "create_handle",
           "add_conditional_node", "CONDITIONAL_KINDS"]

HEADER = "cuda_device_runtime_api.h"
CONDITIONAL_KINDS = ("WHILE", "IF")


# --- finding the toolkit header ----------------------------------------------------------------------------------
def _header_candidates() -> list[Path]:
    out: list[Path] = []
    try:  # cuda.pathfinder knows the pip wheels, conda and CUDA_HOME/CUDA_PATH (newer releases only)
        from cuda import pathfinder

        find = getattr(pathfinder, "find_nvidia_header_directory", None)
        if find is not None:
            found = find("cudart")
            if found:
                out.append(Path(found))
    except Exception:  # an old pathfinder, or one that refuses "cudart": fall through to the usual places
        pass
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]) / "include")
    out.append(Path("/usr/local/cuda/include"))
    for base in sys.path:  # pip wheels: nvidia/cu13/include (cuda-toolkit 13) or nvidia/cuda_runtime/include (12)
        if base and base.endswith("-packages"):
            out += [Path(base) / "nvidia" / "cu13" / "include", Path(base) / "nvidia" / "cuda_runtime" / "include"]
    return out


# The header and what it includes: some pip wheels (nvidia/cu13/include next to NVRTC) carry the header alone.
_NEEDED = (HEADER, "driver_types.h", "crt/host_defines.h")


def cuda_include_dir() -> str | None:
    """A folder holding cuda_device_runtime_api.h and the headers it includes (a CUDA include folder), or None."""
    for d in _header_candidates():
        if all((d / f).is_file() for f in _NEEDED):
            return str(d)
    return None


def conditional_options() -> tuple[str, ...]:
    """NVRTC options for kernels/conditional.cu: the toolkit header when found (required then), else none.

    Without the header the source declares the two names itself, as the header does (same cubin, byte for byte).
    """
    inc = cuda_include_dir()
    return (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER") if inc else ()


def require_conditional(device=None) -> None:
    """UnsupportedError unless the bindings and the driver can build WHILE/IF conditional nodes (CUDA 12.3+)."""
    d = driver_module()
    missing = [n for n in ("cuGraphConditionalHandleCreate", "cuGraphAddNode") if not hasattr(d, n)]
    if missing or not hasattr(d, "CUgraphConditionalNodeType"):
        raise UnsupportedError(f"these cuda-bindings lack {', '.join(missing) or 'CUgraphConditionalNodeType'}: "
                               "conditional graph nodes need cuda-bindings 12.3 or newer")
    if device is not None:
        from ..core.device import driver_version

        if driver_version() < (12, 3):
            raise UnsupportedError("conditional graph nodes need a driver for CUDA 12.3 or newer; this one "
                                   "supports CUDA %d.%d" % driver_version())


def create_handle(graph, ctx, default: int | None):
    """A conditional handle of graph ``graph`` (a handle); with ``default`` the condition is set to that value at
    the start of every launch (CU_GRAPH_COND_ASSIGN_DEFAULT), without it a kernel must set it first."""
    d = driver_module()
    flags = int(d.CU_GRAPH_COND_ASSIGN_DEFAULT) if default is not None else 0
    return cu("cuGraphConditionalHandleCreate", getattr(graph, "handle", graph), ctx, default or 0, flags)


def add_conditional_node(graph, deps, kind: str, handle, ctx) -> tuple:
    """(node, body graph handle) of a new WHILE or IF node of ``graph`` controlled by ``handle``, after ``deps``."""
    if kind not in CONDITIONAL_KINDS:
        raise ValueError(f"conditional kind must be one of {CONDITIONAL_KINDS}, got {kind!r}")
    d = driver_module()
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle = handle
    p.conditional.type = getattr(d.CUgraphConditionalNodeType, f"CU_GRAPH_COND_TYPE_{kind}")
    p.conditional.size = 1
    p.conditional.ctx = ctx
    node = graph_add_node(getattr(graph, "handle", graph), list(deps), p)
    body = p.conditional.phGraph_out[0]  # written by the driver into our params; owned by the node
    if not int(body):
        raise UnsupportedError("the driver made a conditional node without a body graph")
    return node, body
