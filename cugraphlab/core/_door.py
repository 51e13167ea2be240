"""The door to cuda.bindings itself: every driver and NVRTC function is fetched here.

``driver_fn(name)`` returns the binding itself, or, while tracing is on, a wrapper that records the call, its key
arguments, result and duration. Objects look their functions up once when made, so a timed loop pays nothing when
tracing is off. ``cu(name, *args)`` calls and checks in one step for everything outside hot loops.

This room holds the door itself: the modules, the trace and the observers, ``cu`` / ``nv`` / ``jit``, the calls made
straight into libcuda, and the versions the door's own errors name. ``core._compat`` (which CUDA each piece speaks,
the feature gates) and ``core._shims`` (the calls whose form differs between cuda-bindings 12 and 13) are built on
it, and ``core._calls`` gathers the three: import from there. The tests' seam is this module's ``_driver`` (and
``_libcuda``): the other rooms reach the door at call time (``door.cu``), so a stand-in put here reaches them too.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

from .errors import (
    LinkError,
    MissingDriverFunctionError,
    MissingPackageError,
    UnsupportedError,
    check,
    check_nvrtc,
)

__all__ = ["driver_module", "nvrtc_module", "nvjitlink_module", "driver_fn", "nvrtc_fn", "jit_fn", "cu", "nv", "jit",
           "Tracer", "tracing", "tracer", "add_observer", "remove_observer", "observing", "libcuda",
           "launch_host_func", "bindings_version", "driver_cuda_version", "missing_function_error",
           "BINDINGS_INSTALL", "NVJITLINK_INSTALL"]

_driver = None
_nvrtc = None
_nvjitlink = None

#: What to install where cuda-bindings is missing: the package's own lean dependencies (the bindings and NVRTC of one
#: CUDA major), not cuda-bindings' ``all`` extra (nvJitLink, NVVM, cuFile, nvfatbin: twice the size, unused).
BINDINGS_INSTALL = ("reinstall cugraphlab, which brings cuda-bindings and NVRTC: pip install cugraphlab "
                    "(or 'cugraphlab[cu12]' for a CUDA 12 driver)")


def driver_module():
    """cuda.bindings.driver, imported on first use (the tests' seam: a fake put in ``_driver`` is returned).

    Returns
    -------
    module
        cuda.bindings.driver, or the stand-in a test installed.

    Raises
    ------
    MissingPackageError
        cuda-bindings is not installed (a NoDeviceError naming the install).
    """
    global _driver
    if _driver is None:
        try:
            from cuda.bindings import driver
        except ImportError as e:  # pragma: no cover - the package depends on cuda-bindings
            raise MissingPackageError(f"cuda-bindings is not installed: {BINDINGS_INSTALL}") from e
        _driver = driver
    return _driver


def nvrtc_module():
    """cuda.bindings.nvrtc, imported on first use."""
    global _nvrtc
    if _nvrtc is None:
        try:
            from cuda.bindings import nvrtc
        except ImportError as e:  # pragma: no cover
            raise MissingPackageError(f"cuda-bindings is not installed: {BINDINGS_INSTALL}") from e
        _nvrtc = nvrtc
    return _nvrtc


NVJITLINK_INSTALL = ("install cugraphlab's devlaunch extra: pip install 'cugraphlab[devlaunch]' (CUDA 13) or "
                     "'cugraphlab[cu12,devlaunch-cu12]' (CUDA 12), which bring nvidia-nvjitlink (-cu12) and the CUDA "
                     "runtime wheel")


def nvjitlink_module():
    """cuda.bindings.nvjitlink, imported on first use; UnsupportedError (with what to install) when absent."""
    global _nvjitlink
    if _nvjitlink is None:
        try:
            from cuda.bindings import nvjitlink
        except ImportError as e:
            raise UnsupportedError(f"nvJitLink: cuda.bindings.nvjitlink is not importable ({e}): "
                                   f"{NVJITLINK_INSTALL}") from e
        _nvjitlink = nvjitlink
    return _nvjitlink


@dataclass
class TraceEntry:
    api: str
    args: str
    result: str
    ns: int


@dataclass
class Tracer:
    """Records driver/NVRTC calls in order; prints each line to ``stream`` when one is given.

    Parameters
    ----------
    stream : file, optional
        Where each call is printed as it is made; None: recorded only.
    entries : list of TraceEntry, optional
        The calls recorded so far (api, short arguments, result, ns).
    """

    stream: TextIO | None = None
    entries: list[TraceEntry] = field(default_factory=list)

    def record(self, api: str, args: tuple, result, ns: int) -> None:
        """Add one call: its name, arguments (shortened), result (the CUresult's name) and duration.

        Parameters
        ----------
        api : str
            The function's name, e.g. "cuGraphLaunch".
        args : tuple
            Its arguments.
        result : object
            What it returned (a tuple whose first item is the status) or the name of what it raised.
        ns : int
            How long it took (perf_counter_ns).
        """
        status = result[0] if isinstance(result, tuple) and result else result
        entry = TraceEntry(api, _short_args(args), getattr(status, "name", repr(status)), ns)
        self.entries.append(entry)
        if self.stream is not None:
            print(f"[trace] {ns / 1000:9.2f} us  {api}({entry.args}) -> {entry.result}", file=self.stream)

    def wrap(self, api: str, fn: Callable) -> Callable:
        """``fn`` wrapped so that every call is recorded (and still raises what it raises).

        Parameters
        ----------
        api : str
            The name the calls are recorded under.
        fn : callable
            The binding.

        Returns
        -------
        callable
            Calls ``fn`` and records the call.
        """
        perf = time.perf_counter_ns

        def traced(*args):
            t0 = perf()
            try:
                result = fn(*args)
            except Exception as e:
                self.record(api, args, type(e).__name__, perf() - t0)
                raise
            self.record(api, args, result, perf() - t0)
            return result

        traced.__name__ = api
        return traced


_tracer: Tracer | None = None


def tracer() -> Tracer | None:
    """The active tracer, or None."""
    return _tracer


class tracing:
    """Context manager (or plain call + ``stop()``) that turns the driver-call trace on.

    Objects made while it is on record their calls; objects made before keep untraced bindings.

    Parameters
    ----------
    stream : file, optional
        Where each call is printed (standard error by default); None: recorded only (``tracer.entries``).
    """

    def __init__(self, stream: TextIO | None = sys.stderr):
        global _tracer
        self._previous = _tracer
        self.tracer = Tracer(stream)
        _tracer = self.tracer

    def stop(self) -> Tracer:
        """Turn this trace off (the one before it, if any, is on again).

        Returns
        -------
        Tracer
            What was recorded.
        """
        global _tracer
        _tracer = self._previous
        return self.tracer

    def __enter__(self) -> Tracer:
        return self.tracer

    def __exit__(self, *exc) -> None:
        self.stop()


# --- observers: called after each driver call made through this door (the capture doctor watches with one) -------
# An observer is ``fn(name, args, result, frame)``: ``result`` is the binding's tuple (or the exception it raised),
# ``frame`` the Python frame that made the call (cugraphlab's own, often: observers walk outward themselves). Like the
# tracer, it sees the calls of ``cu()`` and of functions looked up with ``driver_fn`` while it is registered;
# functions looked up before (a Launch made earlier keeps its binding) are not seen. With none registered, nothing
# here costs anything.
_observers: list[Callable] = []


def add_observer(fn: Callable) -> None:
    """Call ``fn(name, args, result, frame)`` after every driver call made through this door from now on."""
    if fn not in _observers:
        _observers.append(fn)


def remove_observer(fn: Callable) -> None:
    """Stop calling ``fn`` (no error if it was not registered)."""
    try:
        _observers.remove(fn)
    except ValueError:
        pass


def observing() -> bool:
    """Whether any observer is registered."""
    return bool(_observers)


def _observed(name: str, fn: Callable) -> Callable:
    def observed(*args):
        try:
            result = fn(*args)
        except Exception as e:
            _notify(name, args, e, sys._getframe(1))
            raise
        _notify(name, args, result, sys._getframe(1))
        return result

    observed.__name__ = name
    return observed


def _notify(name: str, args: tuple, result, frame) -> None:
    for obs in tuple(_observers):
        obs(name, args, result, frame)


def driver_fn(name: str) -> Callable:
    """The driver function ``name`` (traced while tracing is on, observed while an observer is registered)."""
    fn = getattr(driver_module(), name)
    if _tracer is not None:
        fn = _tracer.wrap(name, fn)
    return fn if not _observers else _observed(name, fn)


def nvrtc_fn(name: str) -> Callable:
    """The NVRTC function ``name`` (traced while tracing is on)."""
    fn = getattr(nvrtc_module(), name)
    return fn if _tracer is None else _tracer.wrap(name, fn)


def jit_fn(name: str) -> Callable:
    """The nvJitLink function ``name`` of cuda.bindings.nvjitlink (``create``, ``add_data``, ...; traced while
    tracing is on, as ``nvJitLink<Name>``)."""
    fn = getattr(nvjitlink_module(), name)
    api = "nvJitLink" + "".join(part.capitalize() for part in name.split("_"))
    return fn if _tracer is None else _tracer.wrap(api, fn)


def _jit_log(handle) -> str:
    """The error log of an nvJitLink handle, or "" when none can be read."""
    try:
        j = nvjitlink_module()
        size = j.get_error_log_size(handle)
        if size <= 1:
            return ""
        buf = bytearray(size)
        j.get_error_log(handle, buf)
        return bytes(buf).rstrip(b"\0").decode(errors="replace")
    except Exception:
        return ""


def jit(name: str, *args, inputs: tuple[str, ...] = (), options=()):
    """Call nvJitLink function ``name`` (cuda.bindings.nvjitlink raises rather than returning a status).

    A failure becomes LinkError naming the call, the nvJitLinkResult and the link's error log (read from the handle,
    the first argument of every call but ``create`` and ``version``); ``inputs``/``options`` only enrich the message.
    A missing libnvJitLink becomes UnsupportedError with what to install.
    """
    j = nvjitlink_module()
    try:
        return jit_fn(name)(*args)
    except j.nvJitLinkError as e:
        status = getattr(e, "status", None)
        try:
            result = j.Result(status).name
        except Exception:
            result = str(e)
        log = _jit_log(args[0]) if args and name not in ("create", "version") else ""
        raise LinkError(name, f"{result} ({status})" if status is not None else result, log, inputs,
                        options) from e
    except (RuntimeError, OSError) as e:  # the library itself: cuda.pathfinder's DynamicLibNotFoundError etc.
        if "not found" in str(e).lower() or type(e).__name__.endswith("NotFoundError"):
            raise UnsupportedError(f"nvJitLink: libnvJitLink could not be loaded: {NVJITLINK_INSTALL}") from e
        raise


def cu(name: str, *args):
    """Call driver function ``name`` and check its result.

    A function the bindings know but this driver lacks (the bindings raise a RuntimeError for it, see
    ``_missing_in_driver``) becomes one MissingDriverFunctionError (an UnsupportedError: one line, exit 2 in the
    CLI) naming the function and the driver's CUDA version.

    Parameters
    ----------
    name : str
        The driver function, e.g. "cuStreamSynchronize".
    *args
        Its arguments, as cuda.bindings takes them.

    Returns
    -------
    object
        The results after the CUresult: None, one value, or a tuple of them.

    Raises
    ------
    CudaError
        The CUresult was not CUDA_SUCCESS (a typed subclass where one fits, naming the call and what to do).
    MissingDriverFunctionError
        This driver does not export ``name``.
    """
    try:
        result = driver_fn(name)(*args)
    except RuntimeError as e:
        if _missing_in_driver(e):
            raise missing_function_error(name) from e
        raise
    return check(result, name)


# --- the versions the door's own errors name (core._compat has the rest: majors, fit, gates) ------------------------
def bindings_version() -> str:
    """cuda-bindings' own version, e.g. "12.9.10" (the module's, which is the one imported)."""
    from cuda import bindings

    return str(getattr(bindings, "__version__", "0"))


def driver_cuda_version() -> tuple[int, int]:
    """The CUDA version the driver supports, (major, minor), e.g. (12, 4); needs cuInit to have run."""
    v = cu("cuDriverGetVersion")
    return v // 1000, (v % 1000) // 10


def _fmt(v: tuple[int, int]) -> str:
    return "%d.%d" % tuple(v)


def missing_function_error(name: str) -> MissingDriverFunctionError:
    """The one-line error for driver function ``name`` that this driver does not export."""
    try:
        driver = f"CUDA {_fmt(driver_cuda_version())}"
    except Exception:  # the error must not fail while it is being made
        driver = "an unknown CUDA version"
    return MissingDriverFunctionError(
        name, f"{name}: this NVIDIA driver ({driver}) does not have this function, which cuda-bindings "
              f"{bindings_version()} know: it needs a newer driver")


def nv(name: str, *args):
    """Call NVRTC function ``name`` and check its result."""
    return check_nvrtc(nvrtc_fn(name)(*args), name)


def _short_args(args: tuple) -> str:
    parts = []
    for a in args:
        if type(a).__module__.startswith("cuda.bindings") and not hasattr(a, "__int__"):
            # a driver struct: its repr reads every union member, and a conditional node's params hold a pointer
            # (phGraph_out) that another member's view would dereference as garbage; its name says enough
            parts.append(f"<{type(a).__name__}>")
        elif isinstance(a, (bytes, bytearray)) and len(a) > 32:
            parts.append(f"<{len(a)} bytes>")
        elif isinstance(a, (list, tuple)) and len(a) > 6:
            parts.append(f"[{len(a)} items]")
        else:
            r = repr(a)
            parts.append(r if len(r) <= 48 else r[:45] + "...")
    return ", ".join(parts)


# --- a function the driver lacks ---------------------------------------------------------------------------------
# How the bindings say the driver lacks a function: cydriver raises a plain RuntimeError('Function "cuXxx" not
# found') (cuda-bindings 13.3.1 on a CUDA 13.0 driver, for cuGraphNodeGetParams); the generated _internal layers
# raise FunctionNotFoundError("function cuXxx is not found"), a RuntimeError subclass.
_NOT_FOUND = re.compile(r'\bfunction\s+"?\w+"?\s+(?:is\s+)?not\s+found', re.IGNORECASE)


def _missing_in_driver(e: Exception) -> bool:
    """True where the driver lacks the function called (it is older than the bindings): the bindings'
    FunctionNotFoundError or RuntimeError('Function "cuXxx" not found'), and the MissingDriverFunctionError that
    ``cu`` makes of either."""
    if isinstance(e, MissingDriverFunctionError) or type(e).__name__ == "FunctionNotFoundError":
        return True
    return isinstance(e, RuntimeError) and _NOT_FOUND.search(str(e)) is not None


_libcuda = None


def libcuda():
    """libcuda itself through ctypes (the library the bindings loaded), for the calls the bindings wrap in a way
    that does not fit (launch_host_func); UnsupportedError where it cannot be opened."""
    global _libcuda
    if _libcuda is None:
        import ctypes

        try:
            lib = ctypes.CDLL("libcuda.so.1")
            fn = lib.cuLaunchHostFunc
        except (OSError, AttributeError) as e:
            raise UnsupportedError(f"host functions in streams: libcuda.so.1 cannot be opened through ctypes ({e})")
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _libcuda = lib
    return _libcuda


def launch_host_func(stream, fn_address: int, user_data: int = 0) -> None:
    """cuLaunchHostFunc(stream, fn, userData) straight into libcuda: the driver stores ``fn_address`` and
    ``user_data`` themselves (inside a capture: in the host node), with no wrapper of the bindings in between.
    Traced, observed and checked like every other call."""
    raw = libcuda().cuLaunchHostFunc

    def call(stream_handle, fn, data):
        return (driver_module().CUresult(raw(int(stream_handle), int(fn), int(data))),)

    fn = call if _tracer is None else _tracer.wrap("cuLaunchHostFunc", call)
    if _observers:
        fn = _observed("cuLaunchHostFunc", fn)
    check(fn(stream, fn_address, user_data), "cuLaunchHostFunc")
