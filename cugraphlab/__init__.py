"""cugraphlab: what a CUDA kernel launch costs from Python, and what a CUDA graph saves.

Talks to the CUDA driver directly through cuda.bindings (no runtime API, no framework). Typical use::

    import cugraphlab as cgl
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 20) as chain:
        print(chain.verify("graph"))          # bit-exact against NumPy
        chain.run("graph", 5000)
"""
from ._version import __version__
from .calls import tracing
from .chain import DEFAULT_OPS, MODES, OPS, Chain, Verification, parse_ops, reference
from .compiler import Cache, Compiled, compile_source, default_cache, resolve_arch
from .driver import Device, device_count, driver_version, init
from .errors import (
    CaptureError,
    CompileError,
    CudaError,
    CugraphlabError,
    InvalidArgumentError,
    NoDeviceError,
    UnsupportedError,
)
from .graph import Graph, GraphExec, Topology, capture
from .launch import Launch, PackedArgs, grid_for
from .memory import DeviceArray
from .module import Kernel, KernelSet, Module
from .stream import Event, Stream

__all__ = [
    "__version__", "tracing",
    "Chain", "Verification", "OPS", "DEFAULT_OPS", "MODES", "parse_ops", "reference",
    "Cache", "Compiled", "compile_source", "default_cache", "resolve_arch",
    "Device", "device_count", "driver_version", "init",
    "CugraphlabError", "CudaError", "CompileError", "CaptureError", "NoDeviceError", "InvalidArgumentError",
    "UnsupportedError",
    "Graph", "GraphExec", "Topology", "capture",
    "Launch", "PackedArgs", "grid_for",
    "DeviceArray", "Kernel", "KernelSet", "Module", "Event", "Stream",
]
