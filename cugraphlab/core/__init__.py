"""Floor 1, driver objects: errors, the one door to cuda.bindings, ownership, devices, memory, streams, NVRTC
programs and their cache, modules and kernels, launches. Knows nothing of graphs or of the chain.

Read in this order: errors, _calls, _resource, device, memory, stream, program (and cache), module, args (every
kernel argument kind), launch; interop (other libraries' arrays and streams) is what memory, stream and args share.
"""
from ._calls import Tracer, bindings_major, cu, driver_module, tracing
from .cache import Cache, default_cache
from .device import Device, device_count, driver_version, init
from .errors import (
    CaptureError,
    CompileError,
    CudaError,
    CugraphlabError,
    DeviceMemoryError,
    InvalidArgumentError,
    MissingDriverFunctionError,
    NoDeviceError,
    UnsupportedError,
)
from .args import ARG_KINDS, RawBits, Struct
from .launch import BLOCKS_PER_SM, Launch, LaunchConfig, PackedArgs, grid_for
from .memory import POISON_BITS, DeviceArray
from .native_launch import NativeGraphLaunch, NativeLaunch
from .module import Kernel, KernelSet, Module
from .program import Compiled, compile_source, nvrtc_version, resolve_arch
from .stream import Event, Stream

__all__ = [
    "Tracer", "tracing", "cu", "driver_module", "bindings_major",
    "Cache", "default_cache",
    "Device", "device_count", "driver_version", "init",
    "CugraphlabError", "CudaError", "CompileError", "CaptureError", "NoDeviceError", "InvalidArgumentError",
    "UnsupportedError", "DeviceMemoryError", "MissingDriverFunctionError",
    "Launch", "LaunchConfig", "PackedArgs", "grid_for", "BLOCKS_PER_SM", "NativeLaunch", "NativeGraphLaunch",
    "ARG_KINDS", "RawBits", "Struct",
    "POISON_BITS", "DeviceArray",
    "Kernel", "KernelSet", "Module",
    "Compiled", "compile_source", "nvrtc_version", "resolve_arch",
    "Event", "Stream",
]
