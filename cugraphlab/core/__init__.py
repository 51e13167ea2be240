"""Floor 1, driver objects: errors, the one door to cuda.bindings, ownership, devices, memory, streams, NVRTC
programs and their cache, modules and kernels, launches. Knows nothing of graphs or of the chain.

Read in this order: errors, _calls (the door, in three rooms: _door, _compat, _shims), _resource, device, memory,
stream, program (and cache), module, args (every kernel argument kind), launch; interop (other libraries' arrays and
streams) is what memory, stream and args share; files (JSON, CSV and text written by what the path is, atomically)
is what every floor that writes a file uses.
"""
from __future__ import annotations

from .._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "_calls": ("Tracer", "bindings_major", "cu", "driver_module", "tracing"),
    "cache": ("Cache", "default_cache"),
    "device": ("Device", "device_count", "driver_version", "init", "opened"),
    "files": ("check_output", "read_csv", "read_json", "stem_path", "to_jsonable", "write_csv", "write_json",
        "write_text", "Tee"),
    "errors": ("CaptureError", "CompileError", "CudaError", "CugraphlabError", "DeviceMemoryError",
        "InvalidArgumentError", "MissingDriverFunctionError", "NoDeviceError", "UnsupportedError"),
    "args": ("ARG_KINDS", "RawBits", "Struct"),
    "launch": ("BLOCKS_PER_SM", "Launch", "LaunchConfig", "PackedArgs", "grid_for"),
    "memory": ("POISON_BITS", "DeviceArray"),
    "native_launch": ("NativeGraphLaunch", "NativeLaunch"),
    "module": ("Kernel", "KernelSet", "Module"),
    "program": ("Compiled", "compile_source", "nvrtc_version", "resolve_arch"),
    "stream": ("Event", "Stream"),
})
