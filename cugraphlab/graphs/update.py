"""Pointing an instantiated graph at new data without building it again.

An executable graph (CUgraphExec) keeps copies of every kernel's arguments. To run the same work on other buffers or
with other scalars there are three ways, cheapest first:

1. ``cuGraphExecKernelNodeSetParams(exec, node, params)`` per kernel node: new argument values for one node of the
   executable graph. ``node`` is the node of the graph the exec was instantiated from (``set_kernel_params``).
2. Capture (or build) a new graph with the new arguments and ``cuGraphExecUpdate(exec, graph)``: the driver pairs the
   nodes of both graphs and copies the new parameters over. It refuses when the topology changed (another node
   count, other edges, another node type) and says why in a CUgraphExecUpdateResultInfo (``try_exec_update``).
3. ``cuGraphInstantiate`` the new graph: always works, costs the most (tens of microseconds for a few nodes).

Where the time of one update goes (``benchmarks/exec_update.py`` measures it paired, in one process: C, the
binding and ctypes on the same executable and source graphs). Per call, cuda.bindings converts both handle arguments
and builds a new ``CUgraphExecUpdateResultInfo`` for the result-info out-parameter (a Python object owning a
heap-allocated struct; about 0.46 µs by itself on a CPU host), then wraps the status in a ``CUresult`` and a tuple.
ctypes with ``argtypes`` set converts each argument through its type per call (about 0.5 µs for three pointers).
The API allows skipping the first: the result info is an out-parameter a caller may reuse. ``DirectExecUpdate.bind``
calls libcuda's prototyped ``cuGraphExecUpdate_v2`` (argtypes stay set: a call without a prototype could cut a
64-bit handle) with the handles as ``c_void_p`` and one reused ``CUgraphExecUpdateResultInfo`` struct by reference,
made once, the call a ``functools.partial`` (no Python frame of ours); what is left is ctypes' call and the driver's own work,
which the C loop of the exec_update study (benchmarks/studies/exec_update/c_loop.py) shows alone. Whether the parameters changed matters to the driver: an
update that copies new arguments into the executable costs it more than one whose graph holds the same values.

CUDA Driver API, "Graph Management".
"""
from __future__ import annotations

import ctypes
import functools
import time
from dataclasses import dataclass

from ..core._calls import driver_fn, driver_module
from ..core.errors import check
from .build import kernel_node_params
from .inspect import node_label

__all__ = ["UpdateReport", "SUCCESS", "exec_update_report", "try_exec_update", "set_kernel_params", "UPDATE_REASONS", "DirectExecUpdate",
           "ResultInfo"]


SUCCESS = "CU_GRAPH_EXEC_UPDATE_SUCCESS"


@dataclass(frozen=True)
class UpdateReport:
    """Which way an update went: ``path`` is "set_params", "exec_update" or "reinstantiate"; ``updated`` and
    ``refused`` say whether the executable took the new parameters.

    ``result`` is the driver's CUgraphExecUpdateResult name for cuGraphExecUpdate (empty for set_params);
    ``error_node`` names the node the driver blamed; ``reason`` says it in words; ``host_us`` is the host time
    of the whole update (perf_counter_ns).

    Parameters
    ----------
    path : str
        "set_params", "exec_update" or "reinstantiate".
    result : str, optional
        The CUgraphExecUpdateResult's name.
    error_node : str or None, optional
        The blamed node's label.
    reason : str, optional
        The refusal in words.
    host_us : float, optional
        Host µs of the update.
    """

    path: str
    result: str = ""
    error_node: str | None = None
    reason: str = ""
    host_us: float = 0.0

    @property
    def updated(self) -> bool:
        """The executable runs the new parameters without being instantiated again."""
        return self.path == "set_params" or (self.path == "exec_update" and self.result in ("", SUCCESS))

    @property
    def refused(self) -> bool:
        """The driver refused the update (the caller re-instantiated, or must)."""
        return not self.updated

    def __str__(self) -> str:
        text = f"{self.path} ({self.host_us:.1f} us host)"
        if self.result:
            text += f": {self.result}"
        if self.error_node:
            text += f" at {self.error_node}"
        if self.reason:
            text += f" -- {self.reason}"
        return text


def _label(node) -> str:
    try:
        return node_label(node)
    except Exception:
        return f"node {int(node):#x}"


class ResultInfo(ctypes.Structure):
    """``CUgraphExecUpdateResultInfo`` as C lays it out: the result enum, then two node handles (64-bit pointers)."""

    _fields_ = [("result", ctypes.c_int), ("errorNode", ctypes.c_void_p), ("errorFromNode", ctypes.c_void_p)]


def _libcuda_exec_update():
    """libcuda.so.1's cuGraphExecUpdate_v2 with argtypes (three pointers) and restype (CUresult as int) set; None
    where libcuda cannot be opened this way."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        fn = lib.cuGraphExecUpdate_v2
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    fn.restype = ctypes.c_int
    return fn


class DirectExecUpdate:
    """``cuGraphExecUpdate`` on one executable graph through ctypes, without the binding's per-call objects.

        upd = DirectExecUpdate(exe)          # libcuda's cuGraphExecUpdate_v2 (prototyped), exe's handle made once
        call = upd.bind(graph)               # the graph's handle made once: call is a partial of the C function
        status = call()                      # one C call; 0 is CUDA_SUCCESS; upd.info holds the result info
        report = upd.update(graph)           # an UpdateReport, the same answer as try_exec_update

    ``fn`` replaces libcuda's function (tests; a CFUNCTYPE object, whose prototype converts the ``c_void_p``
    arguments). The executable graph (and each bound graph) must outlive the calls.

    Parameters
    ----------
    exe : GraphExec
        The executable to update.
    fn : ctypes function, optional
        Stands in for libcuda's cuGraphExecUpdate_v2 (tests).

    Raises
    ------
    UnsupportedError
        libcuda.so.1 cannot be opened through ctypes.

    See Also
    --------
    cuGraphExecUpdate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g96efefc56df46927da7297f122adfb9f
    """

    def __init__(self, exe, fn=None):
        from ..core.errors import UnsupportedError

        fn = _libcuda_exec_update() if fn is None else fn
        if fn is None:
            raise UnsupportedError("cuGraphExecUpdate through ctypes needs libcuda.so.1 (the NVIDIA driver)")
        self.fn, self.exe = fn, exe
        self.info = ResultInfo()
        self._exe = ctypes.c_void_p(int(exe.handle))
        self._info = ctypes.byref(self.info)  # a reference the driver writes through, that keeps the struct alive

    def bind(self, graph):
        """``call() -> int``: cuGraphExecUpdate(exe, graph, &info) with every argument prepared; the CUresult.

        The call is ``functools.partial(fn, exe, graph, info)`` over ready ``c_void_p`` objects: no Python frame
        of ours per call. The result info is passed by ``byref``, which holds the struct: the call keeps it alive (a
        bare address would let it be collected while the driver still writes into it: the H200 crashed that way).
        ``call.graph`` and ``call.exe`` keep the two graphs alive as long as the call.

        Parameters
        ----------
        graph : Graph
            The graph whose parameters the calls copy into the executable.

        Returns
        -------
        functools.partial
            ``call() -> int``, the CUresult (0: CUDA_SUCCESS); nothing is checked.

        Raises
        ------
        AttributeError
            ``graph`` has no ``handle``.
        """
        call = functools.partial(self.fn, self._exe, ctypes.c_void_p(int(graph.handle)), self._info)
        call.graph = graph  # type: ignore[attr-defined]  # partial objects take attributes
        call.exe = self.exe  # type: ignore[attr-defined]
        return call

    def update(self, graph) -> UpdateReport:
        """cuGraphExecUpdate through ctypes; an UpdateReport like ``try_exec_update``'s.

        Parameters
        ----------
        graph : Graph
            Of the executable's topology.

        Returns
        -------
        UpdateReport
            ``updated`` True on success; a refusal carries the driver's result and the node it blamed.

        Raises
        ------
        CudaError
            Any failure other than CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (typed).

        See Also
        --------
        cuGraphExecUpdate : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g96efefc56df46927da7297f122adfb9f
        """
        d = driver_module()
        status = self.fn(self._exe, ctypes.c_void_p(int(graph.handle)), self._info)
        if status == 0:
            return exec_update_report(SUCCESS)
        if status != int(d.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE):
            check((d.CUresult(status),), "cuGraphExecUpdate (ctypes)")
        try:
            name = d.CUgraphExecUpdateResult(self.info.result).name
        except ValueError:
            name = f"CUgraphExecUpdateResult {self.info.result}"
        node = _label(d.CUgraphNode(self.info.errorNode)) if self.info.errorNode else None
        return exec_update_report(name, node)


def _result_info_from_driver(exe_handle, graph_handle):
    """(result name, error node label) straight from libcuda, for bindings that drop the info on failure.

    cuda-bindings returns ``(CUresult, None)`` from a failing call, so the CUgraphExecUpdateResultInfo that the
    driver filled in is lost. Asking again through ctypes (the update fails the same way and changes nothing)
    recovers it. Returns None where libcuda cannot be opened this way.
    """
    fn = _libcuda_exec_update()
    if fn is None:
        return None
    info = ResultInfo()
    fn(int(exe_handle), int(graph_handle), ctypes.addressof(info))
    d = driver_module()
    try:
        name = d.CUgraphExecUpdateResult(info.result).name
    except ValueError:
        name = f"CUgraphExecUpdateResult {info.result}"
    node = _label(d.CUgraphNode(info.errorNode)) if info.errorNode else None
    return name, node


UPDATE_REASONS = {
    "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED": "the new graph has other nodes or edges",
    "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED": "a node changed type",
    "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED": "a kernel node's function changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE": "a kernel node's function changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED": "a node's parameters changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED": "a node's attributes changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED": "a node cannot be updated at all",
}


def exec_update_report(result: str, error_node: str | None = None, host_us: float = 0.0) -> UpdateReport:
    """The UpdateReport of one cuGraphExecUpdate whose CUgraphExecUpdateResult is named ``result``.

    Parameters
    ----------
    result : str
        The CUgraphExecUpdateResult's name.
    error_node : str or None, optional
        The label of the node the driver blamed.
    host_us : float, optional
        Host µs of the call.

    Returns
    -------
    UpdateReport
        With the reason in words where the driver refused.
    """
    reason = "" if result == SUCCESS else UPDATE_REASONS.get(result, "the driver refused the update")
    return UpdateReport("exec_update", result, error_node, reason, host_us)


def try_exec_update(exe, graph) -> UpdateReport:
    """cuGraphExecUpdate(exe, graph): an UpdateReport whose ``updated`` says whether the driver took it; a refusal
    (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) is reported with the driver's result, the node it blamed and the
    reason; any other failure raises its typed CudaError. ``host_us`` is the call's host time (perf_counter_ns).

    Parameters
    ----------
    exe : GraphExec
        The executable to update.
    graph : Graph
        The graph whose parameters it should take (same topology).

    Returns
    -------
    UpdateReport
        ``updated`` True when the driver took it.

    Raises
    ------
    CudaError
        Any failure other than a refusal (typed).

    See Also
    --------
    cuGraphExecUpdate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g96efefc56df46927da7297f122adfb9f
    """
    d = driver_module()
    t0 = time.perf_counter_ns()
    r = driver_fn("cuGraphExecUpdate")(exe.handle, graph.handle)
    host_us = (time.perf_counter_ns() - t0) / 1e3
    if r[0] == 0:
        return exec_update_report(SUCCESS, host_us=host_us)
    if r[0] != d.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE:
        check(r, "cuGraphExecUpdate")
    info = r[1] if len(r) > 1 else None
    if info is not None:
        name = getattr(info.result, "name", str(info.result))
        node = _label(info.errorNode) if int(info.errorNode) else None
    else:
        asked = _result_info_from_driver(exe.handle, graph.handle)
        if asked is not None:
            name, node = asked
        else:  # no way to the driver's own account: the status code is all there is
            name, node = "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", None
    return exec_update_report(name, node, host_us)


def set_kernel_params(exe, nodes, launches) -> float:
    """Give each kernel node of ``exe`` the arguments of the matching launch (cuGraphExecKernelNodeSetParams);
    ``nodes`` are the nodes of the graph ``exe`` was made from, in the launches' order.

    Parameters
    ----------
    exe : GraphExec
        The executable to change.
    nodes : sequence of CUgraphNode
        Kernel nodes of the graph ``exe`` came from.
    launches : sequence of Launch
        One per node: its kernel, packed arguments and config.

    Returns
    -------
    float
        Host µs spent in the driver calls (perf_counter_ns).

    Raises
    ------
    CudaError
        cuGraphExecKernelNodeSetParams refused (another kernel where the node had one it cannot change, for one).

    See Also
    --------
    cuGraphExecKernelNodeSetParams : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1gd84243569e4c3d6356b9f2eea20ed48c
    """
    fn = driver_fn("cuGraphExecKernelNodeSetParams")
    params = [kernel_node_params(launch) for launch in launches]
    t0 = time.perf_counter_ns()
    for node, p in zip(nodes, params):
        r = fn(exe.handle, node, p)
        if r[0]:
            check(r, "cuGraphExecKernelNodeSetParams")
    return (time.perf_counter_ns() - t0) / 1e3
