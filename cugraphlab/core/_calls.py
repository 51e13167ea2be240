"""The single door to cuda.bindings: every driver and NVRTC function is fetched through it. Import from here.

The door has three rooms, one idea each, and this module gathers their names:

- ``core._door``: the door itself. ``driver_fn(name)`` returns the binding, or, while tracing is on, a wrapper that
  records the call, its key arguments, result and duration; observers (the capture doctor) see each call made
  through it. ``cu`` / ``nv`` / ``jit`` call and check in one step; ``libcuda`` and ``launch_host_func`` call
  libcuda straight where the bindings' wrapper does not fit. Objects look their functions up once when made, so a
  timed loop pays nothing when tracing is off. The tests' seam (``_driver``, ``_libcuda``) is there.
- ``core._compat``: which CUDA the bindings, the driver and NVRTC speak, whether they fit (the start-up check,
  ``versions_fit``), and the feature gates (``require_*``), each refusal one line naming what it needs.
- ``core._shims``: the driver calls whose form differs between cuda-bindings 12.x and 13.x, each one function in
  the 13.x form (the table of differences is in ``core._compat``).
"""
from __future__ import annotations

from ._compat import (
    BRANCHES_NEEDS,
    CONDITIONAL_NEEDS,
    EDGE_DATA_NEEDS,
    FUNC_NAME_NEEDS,
    PDL_ARCH,
    bindings_cuda_version,
    bindings_major,
    check_driver_matches_bindings,
    extra_for_driver,
    require_bindings,
    require_conditional,
    require_conditional_branches,
    require_driver,
    require_pdl,
    versions_fit,
)
from ._door import (
    BINDINGS_INSTALL,
    NVJITLINK_INSTALL,
    Tracer,
    _missing_in_driver,
    _short_args,
    add_observer,
    bindings_version,
    cu,
    driver_cuda_version,
    driver_fn,
    driver_module,
    jit,
    jit_fn,
    launch_host_func,
    libcuda,
    missing_function_error,
    nv,
    nvjitlink_module,
    nvrtc_fn,
    nvrtc_module,
    observing,
    remove_observer,
    tracer,
    tracing,
)
from ._shims import (
    ctx_create,
    func_name,
    graph_add_node,
    graph_edges,
    host_fn,
    kernel_node_priority_attr,
    stream_capture_info,
    stream_set_capture_dependencies,
)

__all__ = ["driver_module", "nvrtc_module", "nvjitlink_module", "driver_fn", "nvrtc_fn", "jit_fn", "cu", "nv", "jit",
           "Tracer", "tracing", "tracer",
           "bindings_version", "bindings_cuda_version", "bindings_major", "driver_cuda_version", "extra_for_driver",
           "check_driver_matches_bindings", "require_driver", "require_bindings", "require_conditional",
           "require_conditional_branches", "require_pdl", "graph_add_node", "graph_edges", "stream_capture_info",
           "stream_set_capture_dependencies", "func_name", "versions_fit", "host_fn", "libcuda",
           "launch_host_func", "kernel_node_priority_attr", "ctx_create", "add_observer", "remove_observer",
           "observing", "missing_function_error", "BINDINGS_INSTALL", "NVJITLINK_INSTALL", "CONDITIONAL_NEEDS",
           "BRANCHES_NEEDS", "EDGE_DATA_NEEDS", "FUNC_NAME_NEEDS", "PDL_ARCH",
           "_missing_in_driver", "_short_args"]  # the last two: the doctor and the tests read them
