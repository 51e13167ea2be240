"""Every CUDA driver function the package names exists in the drivers it accepts, or is behind a gate.

cugraphlab accepts any driver for CUDA 12.0 or newer (core._calls.check_driver_matches_bindings) and is run on
CUDA 13.0 drivers beside cuda-bindings 13.3+, whose headers know functions that such a driver does not export: the
first H200 run of the SWITCH lesson died on cuGraphNodeGetParams (RuntimeError: Function "cuGraphNodeGetParams" not
found; cuda-bindings 13.3.1, driver 580 = CUDA 13.0). This test reads every driver function the package, its
benchmarks and examples name (as a string, or as an attribute of the bindings or of libcuda through ctypes) and
checks it against ``INTRODUCED``: the first CUDA version with the function, read from CUDA 13.0's cudaTypedefs.h
(the lowest ``PFN_<name>_v<version>``). A function missing there is newer than 13.0; one newer than 12.0 must
name its gate in ``GATES``. A new driver call fails this test until its version (and, if newer than 12.0, its
gate) is written down here.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOOR = 12000  # the oldest driver cugraphlab accepts: CUDA 12.0
TABLE_FROM = 13000  # INTRODUCED lists what CUDA 13.0's driver API has

INTRODUCED = {
    "cuCtxCreate": 2000, "cuCtxDestroy": 2000, "cuCtxGetCurrent": 4000, "cuCtxGetDevice": 2000,
    "cuCtxGetStreamPriorityRange": 5050, "cuCtxPopCurrent": 4000, "cuCtxPushCurrent": 4000,
    "cuCtxSetCurrent": 4000, "cuCtxSynchronize": 2000, "cuDeviceGet": 2000, "cuDeviceGetAttribute": 2000,
    "cuDeviceGetCount": 2000, "cuDeviceGetGraphMemAttribute": 11040, "cuDeviceGetName": 2000,
    "cuDeviceGraphMemTrim": 11040, "cuDevicePrimaryCtxGetState": 7000, "cuDevicePrimaryCtxRelease": 7000,
    "cuDevicePrimaryCtxRetain": 7000, "cuDeviceSetGraphMemAttribute": 11040, "cuDeviceTotalMem": 2000,
    "cuDriverGetVersion": 2020, "cuEventCreate": 2000, "cuEventDestroy": 2000, "cuEventElapsedTime": 2000,
    "cuEventRecord": 2000, "cuEventSynchronize": 2000, "cuFuncGetAttribute": 2020, "cuFuncGetName": 12030,
    "cuGetErrorString": 6000, "cuGetProcAddress_v2": 12000, "cuGraphAddChildGraphNode": 10000,
    "cuGraphAddEmptyNode": 10000, "cuGraphAddEventRecordNode": 11010, "cuGraphAddEventWaitNode": 11010,
    "cuGraphAddHostNode": 10000, "cuGraphAddKernelNode": 10000, "cuGraphAddMemAllocNode": 11040,
    "cuGraphAddMemFreeNode": 11040, "cuGraphAddMemcpyNode": 10000, "cuGraphAddMemsetNode": 10000,
    "cuGraphAddNode": 12020, "cuGraphAddNode_v2": 12030, "cuGraphChildGraphNodeGetGraph": 10000,
    "cuGraphClone": 10000, "cuGraphConditionalHandleCreate": 12030, "cuGraphCreate": 10000,
    "cuGraphDebugDotPrint": 11030, "cuGraphDestroy": 10000, "cuGraphDestroyNode": 10000,
    "cuGraphEventRecordNodeGetEvent": 11010,
    "cuGraphEventWaitNodeGetEvent": 11010, "cuGraphExecDestroy": 10000, "cuGraphExecKernelNodeSetParams": 10010,
    "cuGraphExecKernelNodeSetParams_v2": 12000,
    "cuGraphExecUpdate": 10020, "cuGraphExecUpdate_v2": 12000, "cuGraphGetEdges": 10000, "cuGraphGetEdges_v2": 12030,
    "cuGraphGetNodes": 10000, "cuGraphHostNodeGetParams": 10000, "cuGraphInstantiate": 10000,
    "cuGraphInstantiateWithFlags": 11040, "cuGraphInstantiateWithParams": 12000,
    "cuGraphKernelNodeGetAttribute": 11000, "cuGraphKernelNodeGetParams": 10000,
    "cuGraphKernelNodeSetAttribute": 11000, "cuGraphKernelNodeSetParams": 10000, "cuGraphLaunch": 10000,
    "cuGraphMemAllocNodeGetParams": 11040, "cuGraphMemFreeNodeGetParams": 11040, "cuGraphNodeFindInClone": 10000,
    "cuGraphNodeGetEnabled": 11060, "cuGraphNodeGetType": 10000, "cuGraphNodeSetEnabled": 11060,
    "cuGraphUpload": 11010, "cuInit": 2000, "cuLaunchHostFunc": 10000, "cuLaunchKernel": 4000,
    "cuLaunchKernelEx": 11060, "cuMemAlloc": 2000, "cuMemAllocAsync": 11020, "cuMemAllocHost": 2000,
    "cuMemFree": 2000, "cuMemFreeAsync": 11020, "cuMemFreeHost": 2000, "cuMemGetInfo": 2000, "cuMemHostAlloc": 2020,
    "cuMemHostGetDevicePointer": 2020, "cuMemcpyDtoDAsync": 3000, "cuMemcpyDtoHAsync": 2000,
    "cuMemcpyHtoDAsync": 2000, "cuMemsetD32Async": 3020, "cuModuleGetFunction": 2000, "cuModuleLoadData": 2000,
    "cuModuleUnload": 2000, "cuStreamBeginCapture": 10000, "cuStreamBeginCaptureToGraph": 12030,
    "cuStreamBeginCapture_v2": 10010, "cuStreamCreate": 2000, "cuStreamDestroy": 2000, "cuStreamEndCapture": 10000,
    "cuStreamGetCaptureInfo": 10010, "cuStreamIsCapturing": 10000, "cuStreamSynchronize": 2000,
    "cuStreamUpdateCaptureDependencies": 11030, "cuStreamWaitEvent": 3020,
    # named by the capture doctor (graphs.doctor, experiment.doctor_gallery): the calls it classifies
    "cuArrayCreate": 2000, "cuEventQuery": 2000, "cuEventRecordWithFlags": 11010, "cuMemAllocManaged": 6000,
    "cuMemAllocPitch": 2000, "cuMemCreate": 10020, "cuMemHostRegister": 4000, "cuMemHostUnregister": 4000,
    "cuMemMap": 10020, "cuMemRelease": 10020, "cuMemUnmap": 10020, "cuMemcpy": 4000, "cuMemcpy2D": 2000,
    "cuMemcpy3D": 2000, "cuMemcpyAtoH": 2000, "cuMemcpyDtoD": 2000, "cuMemcpyDtoH": 2000, "cuMemcpyHtoA": 2000,
    "cuMemcpyHtoD": 2000, "cuMemcpyPeer": 4000, "cuMemsetD16": 2000, "cuMemsetD16Async": 3020, "cuMemsetD32": 2000,
    "cuMemsetD8": 2000, "cuMemsetD8Async": 3020, "cuPointerGetAttribute": 4000, "cuStreamQuery": 2000,
    # the replay watch (graphs.doctor.launches): the memory a captured kernel's pointer arguments point into
    "cuFuncGetParamInfo": 12040, "cuMemGetAddressRange": 2000,
}

# Every function newer than the 12.0 floor: where the one-line gate (or the fallback) is.
GATES = {
    "cuFuncGetName": "core._calls.func_name: None where the driver lacks it (node labels show '?')",
    "cuGraphAddNode": "core._calls.graph_add_node, used for conditional nodes (require_conditional: 12.3) and "
                      "programmatic edges (require_pdl(graphs=True): 12.3)",
    "cuGraphAddNode_v2": "12.x bindings' name of the 12.3 form: graph_add_node falls back to the 12.2 form",
    "cuGraphGetEdges_v2": "12.x bindings' name of the 12.3 form: graph_edges falls back to the plain form",
    "cuGraphConditionalHandleCreate": "core._calls.require_conditional (driver 12.3)",
    "cuStreamBeginCaptureToGraph": "graphs.capture_into.require_capture_into, only for conditional bodies "
                                   "(require_conditional: 12.3)",
    "cuFuncGetParamInfo": "graphs.doctor.launches._pointer_ranges: looked up with getattr and any failure caught; "
                          "without it only a graph's captured copies and memsets count as its memory",
}
NOT_FUNCTIONS = {"cuEvent", "cuXxx"}  # a clock name's prefix and a placeholder in prose

_QUOTED = re.compile(r"[\"'](cu[A-Z][A-Za-z0-9_]+)[\"']")
_ATTRIBUTE = re.compile(r"\.(cu[A-Z][A-Za-z0-9_]+)\b")


def _named() -> dict[str, set[str]]:
    """Driver function name -> the files naming it."""
    out: dict[str, set[str]] = {}
    for folder in ("cugraphlab", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            for name in set(_QUOTED.findall(text)) | set(_ATTRIBUTE.findall(text)):
                out.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return out


def test_the_scan_finds_the_calls_it_must():
    named = _named()
    assert {"cuGraphLaunch", "cuLaunchKernel", "cuGraphNodeSetEnabled", "cuLaunchHostFunc"} <= set(named)
    assert len(named) > 60


def test_every_driver_function_named_is_in_the_table():
    unknown = {n: sorted(f) for n, f in _named().items() if n not in INTRODUCED and n not in NOT_FUNCTIONS}
    assert not unknown, (f"driver functions without a known first CUDA version: {unknown}; add each to INTRODUCED "
                         f"(cudaTypedefs.h: the lowest PFN_<name>_v<version>), and to GATES if newer than 12.0")


def test_the_table_is_cuda_13_0s_and_the_h200_failure_stays_fixed():
    assert all(v <= TABLE_FROM for v in INTRODUCED.values())
    assert "cuGraphNodeGetParams" not in INTRODUCED  # newer than 13.0: never called without a gate
    assert "cuGraphNodeGetParams" not in _named(), "cuGraphNodeGetParams: a CUDA 13.0 driver does not export it"


def test_every_function_newer_than_the_floor_names_its_gate():
    named = _named()
    ungated = sorted(n for n in named if INTRODUCED.get(n, 0) > FLOOR and n not in GATES)
    assert not ungated, f"newer than CUDA 12.0 with no gate written down: {ungated}"
    stale = sorted(n for n in GATES if n not in named)
    assert not stale, f"GATES lists functions the package no longer names: {stale}"
