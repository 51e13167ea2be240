"""Device graph launch: graphs that kernels launch from the GPU, with ``cudaGraphLaunch`` in device code.

The host side, in order:

    graph = cuGraphCreate(0) ; cuGraphAddKernelNode(...)             # only kernel, memcpy, memset, child graph nodes
    exe = cuGraphInstantiate(graph, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
    cuGraphUpload(exe, stream)                                       # required before any launch from the device
    launcher = a graph whose kernel gets int(exe) as a 64-bit argument (cudaGraphExec_t is the same handle)
    cuGraphLaunch(launcher, stream)                                  # a device launch must come from inside a graph
    ...
    cuGraphExecDestroy(exe)                                          # after every launch of it has finished

and on the device (kernels/devlaunch.cu, built with -rdc and the device runtime by core.link):
``cudaGraphLaunch(exe, cudaStreamGraphFireAndForget | cudaStreamGraphTailLaunch | ...AsSibling)`` and
``cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch)`` for a graph that relaunches itself.

The rules (CUDA Programming Guide, "Device Graph Launch"; CUDA Driver API, cuGraphInstantiate), and where this module
enforces them:

- A device graph may hold only kernel, memcpy, memset and child graph nodes, all in one context, and at least one
  kernel, memcpy or memset node: ``check_device_graph`` refuses anything else with DeviceGraphError naming the node.
- Its kernels may not use CUDA dynamic parallelism; cooperative launches only without MPS (not checkable here).
- Memcpy nodes: device memory or pinned device-mapped host memory only, no CUDA arrays.
- It must be instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH (not with AUTO_FREE_ON_LAUNCH) and uploaded
  (cuGraphUpload, or one host launch) before a kernel launches it: ``DeviceGraphExec.device_handle`` refuses to hand
  out the handle of an executable that was not uploaded.
- Its structure is fixed at instantiation; an exec update must be uploaded again (``DeviceGraphExec.updated``), and
  launching it from the device during an update is undefined.
- From the device it can only be launched by a kernel that itself runs in a graph, into one of the named streams, by
  one thread; it may not be launched from the device while a previous launch of it runs (cudaErrorInvalidValue), nor
  from host and device at once (undefined).
- A graph may fire-and-forget at most 120 graphs per launch (``MAX_FIRE_AND_FORGET``), have at most 255 pending tail
  launches (``MAX_PENDING_TAIL_LAUNCHES``) and one pending self-launch.
- A launch that fails on the device returns a cudaError_t to the kernel, not to the host: kernels/devlaunch.cu keeps
  the first one in its state, and ``DeviceLaunchError`` names it.

No workload and no timer here (experiment.device_loop runs the chain this way; bench.graphs.devlaunch measures it).
"""
from __future__ import annotations

from ..core._calls import cu, driver_module, require_bindings, require_driver
from ..core.errors import CudaError, CugraphlabError, UnsupportedError
from .exec import Graph, GraphExec
from .inspect import graph_nodes, node_kind

__all__ = [
    "DEVICE_GRAPH_NODE_KINDS", "DEVICE_STREAMS", "MAX_FIRE_AND_FORGET", "MAX_PENDING_TAIL_LAUNCHES",
    "DEVICE_LAUNCH_NEEDS", "DeviceGraphError", "DeviceLaunchError", "device_launch_flag", "require_device_launch",
    "check_device_graph", "DeviceGraphExec", "instantiate_for_device_launch", "cuda_error_name",
]

DEVICE_GRAPH_NODE_KINDS = ("KERNEL", "MEMCPY", "MEMSET", "GRAPH")
#: The named streams of device-side cudaGraphLaunch: reserved cudaStream_t values (cuda_device_runtime_api.h).
DEVICE_STREAMS = {
    "tail": 0x0100000000000000,  # cudaStreamGraphTailLaunch
    "fire_and_forget": 0x0200000000000000,  # cudaStreamGraphFireAndForget
    "sibling": 0x0300000000000000,  # cudaStreamGraphFireAndForgetAsSibling
}
MAX_FIRE_AND_FORGET = 120
MAX_PENDING_TAIL_LAUNCHES = 255
DEVICE_LAUNCH_NEEDS = (12, 0)  # CUDA 12.0 brought device graph launch

# The cudaError_t values a device-side cudaGraphLaunch can return, by number (driver_types.h).
_CUDA_ERRORS = {
    0: "cudaSuccess",
    1: "cudaErrorInvalidValue",
    2: "cudaErrorMemoryAllocation",
    98: "cudaErrorInvalidDeviceFunction",
    101: "cudaErrorInvalidDevice",
    400: "cudaErrorInvalidResourceHandle",
    700: "cudaErrorIllegalAddress",
    719: "cudaErrorLaunchFailure",
    801: "cudaErrorNotSupported",
    900: "cudaErrorStreamCaptureUnsupported",
    910: "cudaErrorGraphExecUpdateFailure",
}
_DEVICE_HINTS = {
    1: ("the graph was launched from the device while a previous launch of it still ran, the stream is not one of "
        "the named device streams, or the graph was not uploaded"),
    400: "the handle is not an uploaded device-launchable executable graph (instantiate with DEVICE_LAUNCH, upload)",
    801: "device graph launch is not supported here (this GPU, driver or an MPS setup)",
}


def cuda_error_name(code: int) -> str:
    """The cudaError_t name of ``code`` where known, else "cudaError <code>"."""
    return _CUDA_ERRORS.get(int(code), f"cudaError {int(code)}")


class DeviceGraphError(CugraphlabError):
    """A graph that cannot be made device-launchable: the node and the rule it breaks."""


class DeviceLaunchError(CugraphlabError):
    """A ``cudaGraphLaunch`` on the device failed; ``code`` is the cudaError_t the kernel got."""

    def __init__(self, code: int, what: str = "a device-side cudaGraphLaunch"):
        self.code = int(code)
        self.name = cuda_error_name(code)
        hint = _DEVICE_HINTS.get(self.code, "see cudaGraphLaunch in the CUDA Runtime API (device-side use)")
        super().__init__(f"{what} returned {self.name} ({self.code}): {hint}")


def device_launch_flag() -> int:
    """CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH as an int (4)."""
    d = driver_module()
    return int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)


def require_device_launch(device=None, driver: tuple[int, int] | None = None) -> str:
    """UnsupportedError (one line) unless the bindings, the driver (CUDA 12.0+), the GPU (unified addressing, what
    the CUDA Programming Guide asks; no arch of its own), nvJitLink, libcudadevrt.a and the device runtime's headers
    for NVRTC's CUDA major (what compiling a kernel that launches graphs needs) allow device graph launch; returns ""
    or a note for an arch not measured here. Without ``device`` only the bindings and the libraries are checked."""
    from ..core.link import devrt_include_dir, find_cudadevrt, require_device_launch_arch, require_nvjitlink

    require_bindings("device graph launch", "CUgraphInstantiate_flags", "cuGraphUpload")
    note = ""
    if device is not None:
        require_driver("device graph launch", DEVICE_LAUNCH_NEEDS, driver)
        note = require_device_launch_arch(device.compute_capability)
        if not device.attribute("UNIFIED_ADDRESSING"):
            raise UnsupportedError("device graph launch: needs unified addressing, which this platform lacks")
    require_nvjitlink()
    devrt_include_dir(find_cudadevrt())  # a cu12 stack without CUDA 12's headers is refused here, not at the build
    return note


def _child_graph(node):
    return cu("cuGraphChildGraphNodeGetGraph", node)


def check_device_graph(graph, _path: str = "graph") -> int:
    """DeviceGraphError unless every node of ``graph`` (a Graph or handle; child graphs too) is of a kind a device
    graph may hold, and it has at least one kernel, memcpy or memset node. Returns the number of such nodes."""
    nodes = graph_nodes(graph)
    work = 0
    for i, node in enumerate(nodes):
        kind = node_kind(node)
        if kind not in DEVICE_GRAPH_NODE_KINDS:
            raise DeviceGraphError(
                f"{_path} node [{i}] is a {kind} node: a device-launchable graph may hold only kernel, memcpy, "
                f"memset and child graph nodes (CUDA Programming Guide, Device Graph Requirements)")
        if kind == "GRAPH":
            work += check_device_graph(_child_graph(node), f"{_path} node [{i}] (child graph)")
        else:
            work += 1
    if work == 0 and _path == "graph":
        raise DeviceGraphError("the graph has no kernel, memcpy or memset node: a device-launchable graph cannot "
                               "be empty")
    return work


class DeviceGraphExec(GraphExec):
    """An executable graph instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: launchable from the host
    (``launch``) and, once uploaded, from kernels (``device_handle`` is the value to pack as a u64 argument).
    Owned like any GraphExec: cuGraphExecDestroy on close or collection."""

    def __init__(self, device, handle):
        super().__init__(device, handle)
        self.uploaded = False

    def upload(self, stream) -> None:
        """cuGraphUpload: required before a kernel may launch this graph."""
        super().upload(stream)
        self.uploaded = True

    def launch(self, stream) -> None:
        """cuGraphLaunch from the host (which also uploads it)."""
        super().launch(stream)
        self.uploaded = True

    def updated(self) -> None:
        """Say that the executable was updated (cuGraphExecUpdate, set-params): it must be uploaded again before a
        device launch."""
        self.uploaded = False

    @property
    def device_handle(self) -> int:
        """The CUgraphExec as an int, to pass to a kernel (a cudaGraphExec_t is the same pointer-sized handle)."""
        self.require_open()
        if not self.uploaded:
            raise DeviceGraphError("this device graph was not uploaded: call upload(stream) (cuGraphUpload) or "
                                   "launch it once from the host before a kernel launches it")
        return int(self.handle)


def instantiate_for_device_launch(graph: Graph, stream=None, *, check: bool = True) -> DeviceGraphExec:
    """``graph`` instantiated for device launch (cuGraphInstantiate with CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
    and, with ``stream``, uploaded (cuGraphUpload). ``check`` first applies ``check_device_graph``. A refusal by the
    driver becomes DeviceGraphError naming the CUresult and the rules. The graph stays the caller's."""
    graph.require_open()
    if check:
        check_device_graph(graph)
    try:
        handle = cu("cuGraphInstantiate", graph.handle, device_launch_flag())
    except CudaError as e:
        raise DeviceGraphError(
            f"cuGraphInstantiate(DEVICE_LAUNCH) refused the graph: {e.name}. A device graph holds only kernel, "
            f"memcpy, memset and child graph nodes of one context, no dynamic parallelism, and cannot be empty") \
            from e
    exe = DeviceGraphExec(graph.device, handle)
    if stream is not None:
        try:
            exe.upload(stream)
        except BaseException:
            exe.close()
            raise
    return exe

