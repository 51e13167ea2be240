"""cugraphlab: what a CUDA kernel launch costs from Python, and what a CUDA graph saves.

Talks to the CUDA driver directly through cuda.bindings (no runtime API, no framework). Typical use::

    import cugraphlab as cgl
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 20) as chain:
        print(chain.verify("graph"))          # bit-exact against NumPy
        chain.run("graph", 5000)

The package reads like a textbook, one floor on top of the other, each importing only from floors below it:
``core`` (driver objects), ``graphs`` (the CUDA graph API, one concept per module), ``experiment`` (the
add/mul/sub/relu chain built on them), ``bench`` (every timer and result record), ``report`` (text, files and
figures from result records) and ``cli``.

This module offers the names a script needs (``__all__``: devices, memory, streams and events; compiling, kernels
and launches; the driver door; graphs and capture; the chain; records and measuring; the errors). Everything else
is reached through its subpackage (``cugraphlab.graphs.add_kernel_node``, ``cugraphlab.bench.timed_loop``). Each
name loads its subpackage on first use, so that importing a low floor never loads a higher one. A name that was
here in 0.1.0 and left says where it went (``cugraphlab.resolve_arch moved to cugraphlab.core.resolve_arch``:
``_moves``, and CHANGELOG.md).
"""
import importlib as _importlib

from ._lazy import install_moved_finder as _install_moved_finder
from ._lazy import missing as _missing
from ._version import __version__

_install_moved_finder()  # `import cugraphlab.compiler`: says where it went (0.1.0's names and modules: _moves)

#: public name -> the subpackage (or module) that defines it, in the order a newcomer meets them
_PUBLIC: dict[str, str] = {
    # devices, memory, streams, events
    "Device": "core", "DeviceArray": "core", "Stream": "core", "Event": "core",
    # compiling, kernels, launches
    "compile_source": "core", "Module": "core", "Kernel": "core", "Launch": "core", "LaunchConfig": "core",
    "PackedArgs": "core", "grid_for": "core",
    # the one door to the driver: every call checked and traced
    "cu": "core", "driver_module": "core", "tracing": "core",
    # graphs and capture
    "Graph": "graphs", "GraphExec": "graphs", "capture": "graphs",
    # the add/mul/sub/relu chain
    "Chain": "experiment", "reference": "experiment", "compare_bits": "experiment",
    # result records
    "Record": "bench", "load_record": "bench", "diff_records": "bench",
    # measuring your own work (the function lives in the bench.measure wing, beside latency, timeline, sweep)
    "measure": "bench.measure",
    # the errors
    "CugraphlabError": "core", "CudaError": "core", "CompileError": "core", "CaptureError": "core",
    "NoDeviceError": "core", "InvalidArgumentError": "core", "UnsupportedError": "core",
    "DeviceMemoryError": "core", "MissingDriverFunctionError": "core",
    # the errors of measure (both InvalidArgumentError): the user's work raised, or ignored its stream
    "WorkRaised": "bench.measure", "StreamIgnoredError": "bench.measure",
}
_SUBPACKAGES = ("core", "graphs", "experiment", "bench", "report", "cli")

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return _importlib.import_module(f"{__name__}.{name}")
    where = _PUBLIC.get(name)
    if where is None:
        raise _missing(__name__, name)  # a name of 0.1.0 says where it went (cugraphlab/_moves.py, CHANGELOG.md)
    value = getattr(_importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))
