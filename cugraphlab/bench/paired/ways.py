"""The ways of launching one kernel that can share a context, built on one ``Rig`` (one context's shared objects).

Every way launches the SAME cubin's ``add`` (out = x + y on ``size`` floats, the chain's launch shape: blocks of 256,
one float4 per thread) with the same buffers on the SAME stream, so they differ only in the host path of the launch:

  bindings           cuda.bindings ``driver.cuLaunchKernel(*args)``, the argument tuple built once (the reference)
  cugraphlab         cugraphlab's hot loop, ``Runner([launch]).eager(n)``
  cugraphlab_launch  ``Launch.__call__`` in a Python loop
  ctypes             ``libcuda.so.1``'s cuLaunchKernel through ctypes, ctypes arguments built once
  c                  cuLaunchKernel in a C loop (``bench.native``), timed in C
  cugraphlab_native  ``Launch.native().fire()`` in a Python loop: a CPython builtin whose C body is one
                     cuLaunchKernel (``core.native_launch``), the GIL held
  cugraphlab_native_nogil  the same with the GIL released around the driver call (as cuda.bindings does)
  cuda_core          cuda.core ``launch(stream, LaunchConfig, kernel, *args)``: ObjectCode from the same cubin bytes,
                     the stream wrapped with ``Stream.from_handle``
  cupy_raw           CuPy ``RawModule(path=<the same cubin>)``, ``kernel(grid, block, args)`` inside
                     ``cupy.cuda.ExternalStream(<the stream>)``, the buffers wrapped as CuPy arrays (UnownedMemory)

In ``graph`` mode the rig captures ``graph_kernels`` launches of ``add`` into one graph and the ways are
cuGraphLaunch: bindings (reference), cugraphlab (``GraphExec.launch``), cugraphlab_native
(``NativeGraphLaunch.fire``), ctypes and c.

The foreign stacks use cugraphlab's context: they are made while it is current, and the rig makes it current again
after each (CuPy's runtime may switch to the primary context). Each way is checked once per context: outputs
poisoned, one launch, compared bit for bit with NumPy's x + y. A way of this project's own (bindings, cugraphlab,
ctypes, c, the native ones) that fails raises, except that c and the native ways are skipped with the reason where no
C compiler exists; a foreign one whose package is missing is "not installed", one that fails otherwise is
dropped with the reason (``WayUnavailable``).
"""
from __future__ import annotations

import ctypes
import os
import tempfile
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...core._resource import Resource
from ...core.errors import CugraphlabError, InvalidArgumentError, UnsupportedError
from ...core.launch import Launch, LaunchConfig, PackedArgs
from ...core.memory import validate_size
from ...experiment.chain import BLOCK, chain_grid
from ..native.loops import native_floor
from ..probes.hold import DeviceHold
from ..probes.sm_clock import SmClockProbe, rated_clock_mhz

__all__ = ["WAYS", "OWN_WAYS", "NATIVE_WAYS", "GRAPH_WAYS", "REFERENCE", "WayUnavailable", "PairedWay", "Rig", "build_ways",
           "MODES"]

REFERENCE = "bindings"
WAYS = {
    "bindings": "cuda.bindings cuLaunchKernel, argument tuple built once",
    "cugraphlab": "cugraphlab Runner.eager (the package's hot loop)",
    "cugraphlab_launch": "cugraphlab Launch() in a Python loop",
    "ctypes": "ctypes into libcuda.so.1, ctypes arguments built once",
    "c": "C loop calling cuLaunchKernel (native floor)",
    "cugraphlab_native": "cugraphlab Launch.native().fire() in a Python loop (C builtin, GIL held)",
    "cugraphlab_native_nogil": "cugraphlab Launch.native(release_gil=True).fire() in a Python loop",
    "cuda_core": "cuda.core launch() with a prebuilt LaunchConfig",
    "cupy_raw": "CuPy RawModule kernel(grid, block, args)",
}
GRAPH_WAYS = {
    "bindings": "cuda.bindings cuGraphLaunch",
    "cugraphlab": "cugraphlab GraphExec.launch",
    "ctypes": "ctypes cuGraphLaunch",
    "c": "C loop calling cuGraphLaunch (native floor)",
    "cugraphlab_native": "cugraphlab NativeGraphLaunch.fire() in a Python loop (C builtin, GIL held)",
}
#: The ways built from C at run time: skipped, with the reason, where no C compiler exists.
NATIVE_WAYS = ("c", "cugraphlab_native", "cugraphlab_native_nogil")
OWN_WAYS = ("bindings", "cugraphlab", "cugraphlab_launch", "ctypes", "c", "cugraphlab_native",
            "cugraphlab_native_nogil")
MODES = ("launch", "graph")
KERNEL_NAMES = ("add", "hold", "clockprobe")
ADD_SIGNATURE = ("ptr", "ptr", "ptr", "u64")


class WayUnavailable(CugraphlabError):
    """A foreign way that cannot run here; ``installed`` False means its package is missing."""

    def __init__(self, message: str, installed: bool = True):
        super().__init__(message)
        self.installed = installed


@dataclass
class PairedWay:
    """One way as the harness sees it: ``run(n)`` launches ``n`` times on the rig's stream and returns None (the
    harness times it with perf_counter_ns) or the nanoseconds it measured itself (the C loop)."""

    name: str
    run: Callable[[int], int | None]
    what: str = ""
    own: bool = True
    clock: str = "host_call"


class Rig(Resource):
    """One context's shared objects for paired measurement: the device (a Device or CreatedContext, owned and closed
    last), the kernels add/hold/clockprobe, one stream, x, y (random, seeded) and out, the ``add`` Launch, the
    device hold (bench.probes.hold) and the SM clock probe. ``mode`` "graph" also makes ``graph_exec`` (``graph_kernels``
    launches of add captured once). ``own_device`` False: several rigs (one per stream) share a device the caller
    closes after them."""

    def __init__(self, device, *, size: int = 1024, seed: int = 0, release: str = "mapped", mode: str = "launch",
                 graph_kernels: int = 4, kind: str = "primary", fresh: bool | None = None, index: int = 0,
                 own_device: bool = True):
        if mode not in MODES:
            raise InvalidArgumentError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if own_device:
            self.adopt(device)  # first adopted, last closed: everything below lives in its context
        self.device, self.size, self.mode, self.kind, self.fresh, self.index = device, validate_size(size), mode, \
            kind, fresh, index
        self.kernels = self.adopt(device.load_kernels(names=list(KERNEL_NAMES)))
        self.stream = self.adopt(device.create_stream())
        n = self.size
        rng = np.random.default_rng([int(seed), n, index])
        self.x_host = rng.standard_normal(n, dtype=np.float32)
        self.y_host = rng.standard_normal(n, dtype=np.float32)
        self.expected = self.x_host + self.y_host
        self.x = self.adopt(device.to_device(self.x_host))
        self.y = self.adopt(device.to_device(self.y_host))
        self.out = self.adopt(device.array(n))
        self.grid = chain_grid(n, device.sm_count)
        self.config = LaunchConfig(self.grid, BLOCK)
        self.launch = self._add_launch()
        self.holder = self.adopt(DeviceHold(device, self.kernels, self.stream, release=release,
                                            timeout_ms=2000.0))
        self.probe = SmClockProbe(device, self.kernels, self.stream)
        self.adopt(self.probe.out)
        self.rated_mhz = rated_clock_mhz(device)
        self.graph_exec = None
        if mode == "graph":
            from ...graphs.capture import capture_launches
            from ...graphs.exec import ready_exec

            self.graph_exec = self.adopt(ready_exec(capture_launches(self.stream, [self.launch], graph_kernels),
                                                    self.stream))
        self.stream.synchronize()

    def _add_launch(self) -> Launch:
        args = PackedArgs(ADD_SIGNATURE, (self.out, self.x, self.y, self.size))
        return Launch(self.kernels["add"], args, self.config, self.stream)

    @property
    def image(self) -> bytes:
        """The cubin (or PTX) that holds ``add``: what the foreign stacks load."""
        return self.kernels.compiled["add"].image

    # --- what the harness calls ----------------------------------------------------------------------------------
    def drain(self) -> None:
        self.stream.synchronize()

    def sm_clock_mhz(self) -> float | None:
        return self.probe.read()

    def held(self):
        return self.holder.held()

    def mismatches(self, run: Callable[[int], object]) -> int:
        """Poison out, ``run(1)``, wait, and count the elements that differ bit for bit from NumPy's x + y."""
        self.out.poison(self.stream)
        run(1)
        self.stream.synchronize()
        got = self.out.to_numpy(stream=self.stream)
        return int(np.count_nonzero(got.view(np.uint32) != self.expected.view(np.uint32)))

    def describe(self) -> str:
        return f"context {self.index} ({self.kind}{'' if self.fresh is None else ', fresh' if self.fresh else ''})"


# --- the ways -------------------------------------------------------------------------------------------------------
def _bindings(rig: Rig) -> Callable[[int], None]:
    from ..native.loops import bindings_loop, graph_bindings_loop

    if rig.mode == "graph":
        return graph_bindings_loop(rig.graph_exec, rig.stream)
    # its own packed arguments (same values): the bare binding shares nothing of cugraphlab's but the handles
    rig.bindings_launch = Launch(rig.kernels["add"], PackedArgs(ADD_SIGNATURE, (rig.out, rig.x, rig.y, rig.size)),
                                 rig.config, rig.stream)
    return bindings_loop(rig.bindings_launch)


def _cugraphlab(rig: Rig) -> Callable[[int], None]:
    if rig.mode == "graph":
        exe, s = rig.graph_exec, rig.stream

        def loop(n: int) -> None:
            for _ in range(n):
                exe.launch(s)

        return loop
    from ...experiment.runners import Runner

    runner = rig.adopt(Runner([rig.launch], rig.stream))
    return runner.eager


def _cugraphlab_launch(rig: Rig) -> Callable[[int], None]:
    from ..native.loops import launch_loop

    return launch_loop(rig.launch)


_VP, _U = ctypes.c_void_p, ctypes.c_uint


def _ctypes(rig: Rig) -> Callable[[int], None]:
    from ...core.errors import check

    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise RuntimeError(f"libcuda.so.1 not loadable through ctypes: {e}") from e
    s = _VP(int(rig.stream.handle))
    if rig.mode == "graph":
        fn = lib.cuGraphLaunch
        fn.restype, fn.argtypes = ctypes.c_int, (_VP, _VP)
        e = _VP(int(rig.graph_exec.handle))

        def graph_loop(n: int) -> None:
            for _ in range(n):
                r = fn(e, s)
                if r:
                    check((r,), "cuGraphLaunch (ctypes)")

        return graph_loop
    fn = lib.cuLaunchKernel
    fn.restype = ctypes.c_int
    fn.argtypes = (_VP, _U, _U, _U, _U, _U, _U, _U, _VP, _VP, _VP)
    rig.ctypes_args = PackedArgs(ADD_SIGNATURE, (rig.out, rig.x, rig.y, rig.size))
    g, b = rig.config.grid, rig.config.block
    c = (_VP(int(rig.kernels["add"].handle)), _U(g[0]), _U(g[1]), _U(g[2]), _U(b[0]), _U(b[1]), _U(b[2]), _U(0), s,
         _VP(rig.ctypes_args.address), None)

    def loop(n: int) -> None:
        for _ in range(n):
            r = fn(*c)
            if r:
                check((r,), "cuLaunchKernel (ctypes)")

    return loop


def _c(rig: Rig) -> Callable[[int], int]:
    floor = native_floor()
    if rig.mode == "graph":
        return floor.graph_loop(rig.graph_exec, rig.stream)
    return floor.launch_loop(rig.launch)


def _native_fire(rig: Rig, release_gil: bool = False) -> Callable[[int], None]:
    """``fire()`` of a NativeLaunch of the rig's ``add`` Launch (same CUfunction, packed arguments and stream), or
    of a NativeGraphLaunch of its graph; owned by the rig (closed before the stream and the graph exec)."""
    from ...core.native_launch import NativeGraphLaunch, NativeLaunch

    if rig.mode == "graph":
        native = NativeGraphLaunch(rig.graph_exec, rig.stream, release_gil=release_gil)
    else:
        native = NativeLaunch(rig.launch, release_gil=release_gil)
    rig.adopt(native)
    fire = native.fire

    def loop(n: int) -> None:
        for _ in range(n):
            fire()

    return loop


def _cugraphlab_native_nogil(rig: Rig) -> Callable[[int], None]:
    return _native_fire(rig, release_gil=True)


def _import_cuda_core():
    try:
        import cuda.core as core

        core.launch, core.LaunchConfig, core.ObjectCode  # noqa: B018 - 1.x names at the top level
        return core
    except (ImportError, AttributeError):
        pass
    try:
        import cuda.core.experimental as core

        core.launch, core.LaunchConfig, core.ObjectCode  # noqa: B018
        return core
    except (ImportError, AttributeError) as e:
        raise WayUnavailable(f"not installed: cuda.core ({type(e).__name__}: {e})", installed=False) from e


def _core_version(core) -> str:
    v = getattr(core, "__version__", None)
    if v:
        return str(v)
    try:
        from importlib.metadata import version

        return version("cuda-core")
    except Exception:
        return "?"


def _cuda_core(rig: Rig) -> Callable[[int], None]:
    core = _import_cuda_core()
    version = _core_version(core)
    try:
        major, minor = (int(p) for p in version.split(".")[:2])
        if (major, minor) < (0, 3):
            raise WayUnavailable(f"cuda.core {version} launches with launch(kernel, config, ...): needs 0.3 or newer")
    except ValueError:
        pass
    load = core.ObjectCode.from_cubin if rig.kernels.compiled["add"].kind == "cubin" else core.ObjectCode.from_ptx
    obj = load(rig.image, name="add")
    kernel = obj.get_kernel("add")
    stream_cls = getattr(core, "Stream", None)
    handle = int(rig.stream.handle)
    if stream_cls is not None and hasattr(stream_cls, "from_handle"):
        stream = stream_cls.from_handle(handle)
    else:  # any object with __cuda_stream__ (the stream protocol) is accepted by launch()
        class _Borrowed:
            def __cuda_stream__(self):
                return (0, handle)

        stream = _Borrowed()
    config = core.LaunchConfig(grid=rig.grid, block=BLOCK)
    launch = core.launch
    args = (int(rig.out.ptr), int(rig.x.ptr), int(rig.y.ptr), np.uint64(rig.size))
    rig.cuda_core_objects = (obj, kernel, stream, config)  # alive as long as the rig

    def loop(n: int) -> None:
        for _ in range(n):
            launch(stream, config, kernel, *args)

    loop.version = version  # type: ignore[attr-defined]
    return loop


def _cupy_raw(rig: Rig) -> Callable[[int], None]:
    try:
        import cupy
    except Exception as e:
        raise WayUnavailable(f"not installed: cupy ({type(e).__name__}: {e})", installed=False) from e
    cupy.cuda.runtime.getDeviceCount()  # the runtime up; it adopts the current context
    rig.device.make_current()
    kind = rig.kernels.compiled["add"].kind
    folder = tempfile.mkdtemp(prefix="cgl-paired-cupy-")
    path = os.path.join(folder, f"add.{kind}")
    try:
        with open(path, "wb") as f:
            f.write(rig.image)
        module = cupy.RawModule(path=path)
        kernel = module.get_function("add")
        kernel.attributes  # noqa: B018 - loads the module now (cuModuleLoad), while the file exists
    finally:
        try:
            os.unlink(path)
            os.rmdir(folder)
        except OSError:
            pass
    dev = rig.device.ordinal

    def wrap(arr):
        mem = cupy.cuda.UnownedMemory(arr.ptr, arr.nbytes, arr, dev)
        return cupy.ndarray((arr.n,), dtype=cupy.float32, memptr=cupy.cuda.MemoryPointer(mem, 0))

    args = (wrap(rig.out), wrap(rig.x), wrap(rig.y), np.uint64(rig.size))
    stream = cupy.cuda.ExternalStream(int(rig.stream.handle), dev)
    g, b = (rig.grid,), (BLOCK,)
    rig.cupy_objects = (module, kernel, args, stream)

    def loop(n: int) -> None:
        with stream:
            for _ in range(n):
                kernel(g, b, args)

    loop.version = cupy.__version__  # type: ignore[attr-defined]
    return loop


_BUILDERS = {"bindings": _bindings, "cugraphlab": _cugraphlab, "cugraphlab_launch": _cugraphlab_launch,
             "ctypes": _ctypes, "c": _c, "cugraphlab_native": _native_fire,
             "cugraphlab_native_nogil": _cugraphlab_native_nogil, "cuda_core": _cuda_core, "cupy_raw": _cupy_raw}


def way_names(mode: str = "launch") -> tuple[str, ...]:
    return tuple(GRAPH_WAYS if mode == "graph" else WAYS)


def validate_ways(ways, mode: str = "launch") -> list[str]:
    """The asked-for way names (None: all of the mode), the reference first; InvalidArgumentError for an unknown
    one."""
    known = way_names(mode)
    if ways is None:
        names = list(known)
    else:
        names = [w.strip() for w in (ways.split(",") if isinstance(ways, str) else ways)]
        names = [w for w in dict.fromkeys(names) if w]
        bad = [w for w in names if w not in known]
        if bad:
            raise InvalidArgumentError(f"unknown way {bad[0]!r} for {mode} mode; known: {', '.join(known)}")
    if REFERENCE not in names:
        names.insert(0, REFERENCE)
    return [REFERENCE] + [w for w in names if w != REFERENCE]


def build_ways(rig: Rig, names) -> tuple[list[PairedWay], dict[str, str]]:
    """The ways ``names`` built on ``rig`` and each checked bit-exact once; returns (ways, skipped: name -> why).

    A way of this project's own that cannot be built or is not bit-exact raises (UnsupportedError for C without a
    compiler: a machine fact, said in one line); a foreign one is skipped with the reason."""
    descriptions = GRAPH_WAYS if rig.mode == "graph" else WAYS
    ways, skipped = [], {}
    for name in names:
        own = name in OWN_WAYS
        try:
            run = _BUILDERS[name](rig)
            rig.device.make_current()
            bad = rig.mismatches(run)
            if bad:
                raise CugraphlabError(f"way {name}: {bad} of {rig.size} output elements differ from NumPy's x + y")
        except WayUnavailable as e:
            skipped[name] = str(e)
            rig.device.make_current()
            continue
        except UnsupportedError as e:
            if name not in NATIVE_WAYS:
                raise
            skipped[name] = str(e).splitlines()[0]  # no C compiler on this machine: the row says so
            continue
        except Exception as e:
            if own:
                raise
            skipped[name] = f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            rig.device.make_current()
            continue
        what = descriptions[name]
        version = getattr(run, "version", None)
        if version:
            what += f" ({version})"
        ways.append(PairedWay(name, run, what, own, "c_monotonic" if name == "c" else "host_call"))
    return ways, skipped
