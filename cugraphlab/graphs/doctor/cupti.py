"""The capture doctor's CUPTI mode: every driver call of the process, whoever makes it, named when it breaks a capture.

cugraphlab's door (``core._calls``) sees only cugraphlab's own driver calls; a call made by CuPy, PyTorch or a raw
cuda.bindings call shows up to the plain doctor only as a state change of a capturing stream between two calls it
saw ("a call the doctor could not see"). CUPTI, the CUDA Profiling Tools Interface, calls back at the entry and the
exit of every driver (and runtime) API function of the process. With cupti-python installed,
``capture(stream, explain=True, cupti=True)`` subscribes for the capture's duration::

    cuptiSubscribe_v2(&subscriber, callback, userdata, {name})    # one subscriber per process (CUPTI's rule)
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API)  # every cu* call of every library
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) # every cuda* call (CuPy, PyTorch use the runtime)
    cuStreamBeginCapture(origin, mode)
      ... at CUPTI_API_EXIT of each call, in the calling thread: its name (CUpti_CallbackData.functionName), its
          result (*functionReturnValue), the thread, the stream (from functionParams, for calls that take one)
          and the first Python frame outside cugraphlab, cupti, CuPy, PyTorch and cuda-python
    cuStreamEndCapture(origin)
    cuptiUnsubscribe(subscriber)                                  # always, also when the capture raised

When the doctor notices that a capture was invalidated by a call it did not see, it asks this log for the culprit:
the first call that returned a capture error (CUDA_ERROR_STREAM_CAPTURE_*, CUDA_ERROR_CAPTURED_EVENT,
CUDA_ERROR_NOT_PERMITTED; the runtime's cudaErrorStreamCapture* carry the same numbers), else the first
synchronizing, legacy-stream or host-synchronous call the capturing thread made while capturing, and classifies it
with the doctor's own classes (graphs.doctor.classify; a runtime call by its driver counterpart, e.g.
cudaDeviceSynchronize as cuCtxSynchronize). Calls made through the door are marked as such (the doctor already
judges them) and the doctor's own queries are not logged.

CUPTI allows one subscriber per process: a profiler attached (Nsight Systems, a torch.profiler session, another
tool) makes cuptiSubscribe fail with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, raised here as CuptiBusyError.
Nested explained captures share one subscription. libcupti (libcupti.so.13 for cupti-python 13) is loaded through
cuda.pathfinder (``load_nvidia_dynamic_lib("cupti")``: the nvidia-cuda-cupti wheel, conda, CUDA_HOME, the system);
``cupti_library()`` says which file was loaded and how it was found. CUPTI documentation: "CUPTI Callback API"
(cuptiSubscribe_v2, cuptiEnableDomain, CUpti_CallbackData).
"""
from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import UnsupportedError

__all__ = ["CuptiBusyError", "CuptiLibrary", "CuptiCall", "CuptiWatch", "cupti_library", "cupti_available",
           "NOT_INSTALLED", "CODE_NAMES", "normalize", "driver_equivalent", "treat_as_library", "user_frame"]

NOT_INSTALLED = "cupti-python is not installed: pip install cupti-python"
SUBSCRIBER_NAME = "cugraphlab capture doctor"


class CuptiBusyError(UnsupportedError):
    """Another CUPTI subscriber holds this process (a profiler attached): CUPTI allows one. ``holder``: its name,
    when CUPTI says it."""

    def __init__(self, holder: str = ""):
        self.holder = holder
        who = f" ({holder!r})" if holder else ""
        super().__init__(f"CUPTI already has a subscriber in this process{who}, e.g. a profiler (Nsight Systems, "
                         "torch.profiler): CUPTI allows one; run without --cupti/cupti=True, or without the profiler")


# --- loading cupti-python and libcupti -------------------------------------------------------------------------------
@dataclass(frozen=True)
class CuptiLibrary:
    """cupti-python's ``cupti.cupti`` module, the libcupti file loaded and how it was found."""

    module: Any  # cupti.cupti (its types are the bindings' own)
    path: str = ""
    found_via: str = ""

    def describe(self) -> str:
        where = self.path or "?"
        return f"{where} (found via {self.found_via})" if self.found_via else where


_loaded: CuptiLibrary | None = None
_load_lock = threading.Lock()


def _installed() -> bool:
    if "cupti" in sys.modules:
        return sys.modules["cupti"] is not None
    try:
        return importlib.util.find_spec("cupti") is not None
    except (ImportError, ValueError):
        return False


def _mapped_libcupti() -> str:
    """The libcupti file mapped into this process (Linux: /proc/self/maps), or ""."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(" ")[-1]
                if "libcupti" in os.path.basename(path):
                    return path
    except OSError:
        pass
    return ""


def _load() -> CuptiLibrary:
    if not _installed():
        raise UnsupportedError(NOT_INSTALLED)
    path, found_via, why = "", "", ""
    try:  # cuda.pathfinder finds libcupti in the nvidia-cuda-cupti wheel (also torch's), conda, CUDA_HOME, the system
        from cuda.pathfinder import load_nvidia_dynamic_lib

        dl = load_nvidia_dynamic_lib("cupti")
        path, found_via = dl.abs_path or "", dl.found_via
        if getattr(dl, "was_already_loaded_from_elsewhere", False):
            found_via = "already loaded"
    except Exception as e:  # let cupti-python's own loader try (LD_LIBRARY_PATH)
        why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    try:
        from cupti import cupti as module

        module.get_timestamp()  # loads libcupti now (cupti-python binds it lazily)
    except Exception as e:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UnsupportedError(f"cupti-python could not load libcupti: {text}"
                               + (f" (cuda.pathfinder: {why})" if why else "")) from None
    mapped = _mapped_libcupti()
    if mapped and mapped != path:
        path, found_via = mapped, found_via or "cupti-python's loader"
    return CuptiLibrary(module, path, found_via or ("cupti-python's loader" if path else ""))


def cupti_library() -> CuptiLibrary:
    """cupti-python and libcupti, loaded once. UnsupportedError (one line) when cupti-python is not installed or
    libcupti cannot be loaded."""
    global _loaded
    with _load_lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


def cupti_available() -> bool:
    try:
        cupti_library()
        return True
    except UnsupportedError:
        return False


# --- names, codes, frames --------------------------------------------------------------------------------------------
#: CUresult numbers of the results the doctor cares about; cudaError_t uses the same numbers for these.
CODE_NAMES = {
    0: "CUDA_SUCCESS", 800: "CUDA_ERROR_NOT_PERMITTED", 900: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
    901: "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", 902: "CUDA_ERROR_STREAM_CAPTURE_MERGE",
    903: "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", 904: "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
    905: "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", 906: "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
    907: "CUDA_ERROR_CAPTURED_EVENT", 908: "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
}
_INVALIDATED_CODE = 901
_CAPTURE_CODES = frozenset(c for c in CODE_NAMES if c not in (0, _INVALIDATED_CODE))

_SUFFIX = re.compile(r"(_v\d+)?(_ptds|_ptsz)?(_v\d+)?$")


@functools.lru_cache(maxsize=2048)
def normalize(function_name: str) -> str:
    """CUPTI's function name without its ABI suffixes: cuMemcpyDtoH_v2 -> cuMemcpyDtoH, cudaMemcpy_v3020 ->
    cudaMemcpy, cuLaunchKernel_ptsz -> cuLaunchKernel."""
    return _SUFFIX.sub("", function_name or "") or (function_name or "?")


#: Runtime API functions judged as the driver function they stand for.
_RUNTIME_AS_DRIVER = {
    "cudaDeviceSynchronize": "cuCtxSynchronize", "cudaThreadSynchronize": "cuCtxSynchronize",
    "cudaStreamSynchronize": "cuStreamSynchronize", "cudaEventSynchronize": "cuEventSynchronize",
    "cudaMemcpy": "cuMemcpy", "cudaMemcpy2D": "cuMemcpy2D", "cudaMemcpy3D": "cuMemcpy3D",
    "cudaMemcpyPeer": "cuMemcpyPeer", "cudaMemset": "cuMemsetD8", "cudaMemcpyToSymbol": "cuMemcpy",
    "cudaMemcpyFromSymbol": "cuMemcpy",
    "cudaMalloc": "cuMemAlloc", "cudaMallocPitch": "cuMemAllocPitch", "cudaMallocManaged": "cuMemAllocManaged",
    "cudaMallocHost": "cuMemAllocHost", "cudaHostAlloc": "cuMemHostAlloc", "cudaFree": "cuMemFree",
    "cudaFreeHost": "cuMemFreeHost", "cudaHostRegister": "cuMemHostRegister",
    "cudaHostUnregister": "cuMemHostUnregister", "cudaMallocArray": "cuArrayCreate",
    "cudaEventQuery": "cuEventQuery", "cudaStreamQuery": "cuStreamQuery",
    "cudaStreamWaitEvent": "cuStreamWaitEvent", "cudaEventRecord": "cuEventRecord",
    "cudaEventRecordWithFlags": "cuEventRecordWithFlags", "cudaLaunchKernel": "cuLaunchKernel",
    "cudaMemsetAsync": "cuMemsetD8Async", "cudaGraphLaunch": "cuGraphLaunch",
    "cudaStreamBeginCapture": "cuStreamBeginCapture", "cudaStreamEndCapture": "cuStreamEndCapture",
    "cudaLaunchHostFunc": "cuLaunchHostFunc", "cudaMallocAsync": "cuMemAllocAsync", "cudaFreeAsync": "cuMemFreeAsync",
}


def driver_equivalent(name: str) -> str:
    """The driver function a (normalized) runtime function stands for; a driver name is itself."""
    return _RUNTIME_AS_DRIVER.get(name, name)


# Calls whose stream is worth reading from functionParams (the legacy-stream class needs it): CUPTI's params
# struct of each has an ``h_stream`` field (driver) or ``stream`` (runtime).
_STREAM_CALLS = frozenset({
    "cuLaunchKernel", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync",
    "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async", "cuStreamSynchronize", "cuStreamQuery",
    "cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent", "cuGraphLaunch", "cuLaunchHostFunc",
    "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "cudaEventRecord",
    "cudaStreamWaitEvent", "cudaGraphLaunch",
})


def _params_class_name(function_name: str) -> str:
    """cupti-python's params class of a CUPTI function name: cuMemcpyHtoDAsync_v2 -> CuMemcpyHtoDAsyncV2Params,
    cudaLaunchKernel_v7000 -> CudaLaunchKernelV7000Params, cuEventRecord_ptsz -> CuEventRecordPtszParams."""
    parts = function_name.split("_")
    head = parts[0][:1].upper() + parts[0][1:]
    return head + "".join(p[:1].upper() + p[1:] for p in parts[1:]) + "Params"


_FOREIGN_PACKAGES = ("cupti", "cupy", "cupyx", "cupy_backends", "torch", "cuda", "numba", "numba_cuda", "jax",
                     "jaxlib", "triton", "nvmath")


@functools.lru_cache(maxsize=1)
def _foreign_prefixes() -> tuple[str, ...]:
    out = []
    for name in _FOREIGN_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        for loc in (spec.submodule_search_locations or []) if spec is not None else []:
            out.append(os.path.join(os.path.realpath(loc), ""))
            out.append(os.path.join(str(loc), ""))
    return tuple(dict.fromkeys(out))


_LIBRARY_FILES: set[str] = set()


def treat_as_library(path: str) -> None:
    """Skip the frames of the file ``path`` when naming the Python line of a logged call (a wrapper of your own
    around CUDA calls, say), as frames of CuPy and PyTorch are skipped."""
    _LIBRARY_FILES.add(os.path.realpath(path))
    _skipped.cache_clear()


@functools.lru_cache(maxsize=4096)
def _skipped(filename: str) -> bool:
    from .calls import _is_library

    if _is_library(filename):
        return True
    return (filename.startswith(_foreign_prefixes()) or filename == __file__
            or (bool(_LIBRARY_FILES) and os.path.realpath(filename) in _LIBRARY_FILES))


def user_frame(frame, depth: int = 64):
    """(file, line, function) of the first frame outside cugraphlab, cupti, CuPy, PyTorch and cuda-python, or of
    the outermost frame walked; None without a frame."""
    f, last = frame, frame
    while f is not None and depth > 0 and _skipped(f.f_code.co_filename):
        last, f, depth = f, f.f_back, depth - 1
    f = f or last
    return None if f is None else (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


# --- the log ---------------------------------------------------------------------------------------------------------
@dataclass
class CuptiCall:
    """One API call CUPTI reported at its exit: ``name`` normalized (``raw`` as CUPTI spells it), ``domain``
    ("driver" or "runtime"), ``code`` (the CUresult / cudaError_t number; None if unreadable), the thread, the
    stream (int, for calls that take one; None otherwise), the Python frame, and whether cugraphlab's door made
    it (``door``)."""

    seq: int
    name: str
    raw: str
    domain: str
    code: int | None
    thread: int
    thread_name: str
    stream: int | None = None
    frame: tuple | None = None
    door: bool = False

    @property
    def result(self) -> str:
        if self.code is None:
            return "?"
        name = CODE_NAMES.get(self.code)
        if name is None:
            try:
                from ...core._calls import driver_module

                name = driver_module().CUresult(self.code).name
            except Exception:
                name = f"error {self.code}"
        return name if self.domain == "driver" else f"{name} (cudaError {self.code})"

    @property
    def where(self) -> str:
        if not self.frame:
            return "?"
        from .calls import _short_path

        file, line, func = self.frame
        return f"{_short_path(file)}:{line}, in {func}"

    def line(self) -> str:
        s = f" stream {hex(self.stream)}" if self.stream is not None else ""
        by = " [cugraphlab]" if self.door else ""
        return f"#{self.seq} {self.raw}{s} -> {self.result} ({self.thread_name}) at {self.where}{by}"


def _return_code(cbdata) -> int | None:
    """*functionReturnValue (a CUresult or cudaError_t, both C ints), valid at API exit."""
    addr = getattr(cbdata, "function_return_value", 0)
    try:
        addr = int(addr)
    except Exception:
        return None
    if not addr:
        return None
    return ctypes.c_int.from_address(addr).value


class _Hub:
    """The one CUPTI subscription of the process, shared by every watching capture (nested captures, threads)."""

    def __init__(self):
        self.lock = threading.RLock()
        self.watches: list["CuptiWatch"] = []
        self.handle = None
        self.lib: CuptiLibrary | None = None
        self.seq = 0
        self.callback_errors = 0
        self._params: dict[str, Any] = {}

    # subscribe on the first watch, unsubscribe after the last
    def acquire(self, watch: "CuptiWatch") -> None:
        with self.lock:
            if self.handle is None:
                self._subscribe(watch.lib)
            self.watches.append(watch)

    def release(self, watch: "CuptiWatch") -> None:
        with self.lock:
            if watch in self.watches:
                self.watches.remove(watch)
            if not self.watches and self.handle is not None:
                handle, self.handle = self.handle, None
                if self.lib is not None:
                    self.lib.module.unsubscribe(handle)

    def _subscribe(self, lib: CuptiLibrary) -> None:
        c = lib.module
        self.lib = lib  # before any callback can come
        busy = getattr(getattr(c, "Result", None), "ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED", None)
        params = None
        def is_busy(e) -> bool:
            status = getattr(e, "status", None)
            return busy is not None and status is not None and int(status) == int(busy)

        try:
            if hasattr(c, "subscribe_v2") and hasattr(c, "SubscriberParams"):
                params = c.SubscriberParams()
                params.struct_size = c.SUBSCRIBER_PARAMS_SIZE
                params.subscriber_name = SUBSCRIBER_NAME
                try:
                    handle = c.subscribe_v2(self._callback, None, params.ptr)
                except Exception as e:
                    # cupti-python 13.4 with the CUPTI of a CUDA 13.0 install answered the named subscription with
                    # CUPTI_ERROR_INVALID_PARAMETER on the H200: subscribe without a name then (only the "who holds
                    # it" text of a busy error is lost)
                    if is_busy(e) or not hasattr(c, "subscribe"):
                        raise
                    params = None
                    handle = c.subscribe(self._callback, None)
            else:
                handle = c.subscribe(self._callback, None)
        except Exception as e:
            status = getattr(e, "status", None)
            if busy is not None and status is not None and int(status) == int(busy):
                holder = getattr(params, "old_subscriber_name", "") if params is not None else ""
                raise CuptiBusyError(holder or "") from None
            raise UnsupportedError(f"cuptiSubscribe failed: {_status_name(c, status, e)}") from None
        try:
            c.enable_domain(1, handle, c.CallbackDomain.DRIVER_API)
            runtime = getattr(c.CallbackDomain, "RUNTIME_API", None)
            if runtime is not None:
                c.enable_domain(1, handle, runtime)
        except Exception as e:
            c.unsubscribe(handle)
            raise UnsupportedError(f"cuptiEnableDomain failed: {_status_name(c, getattr(e, 'status', None), e)}") \
                from None
        self.handle = handle

    # the callback: in the thread making the call, at its entry and its exit; never raises
    def _callback(self, userdata, domain, cbid, cbdata) -> None:
        try:
            lib = self.lib
            if lib is None:
                return
            c = lib.module
            if cbdata.callback_site != c.ApiCallbackSite.API_EXIT:
                return
            from .calls import _local

            if getattr(_local, "busy", False) or not self.watches:
                return  # the doctor's own queries
            raw = cbdata.function_name or "?"
            name = normalize(raw)
            dom = "driver" if domain == c.CallbackDomain.DRIVER_API else "runtime"
            stream = self._stream(c, raw, name, cbdata) if name in _STREAM_CALLS else None
            t = threading.current_thread()
            with self.lock:
                self.seq += 1
                call = CuptiCall(self.seq, name, raw, dom, _return_code(cbdata), threading.get_ident(), t.name,
                                 stream, user_frame(sys._getframe(1)))
                for w in self.watches:
                    w._add(call)
        except Exception:
            self.callback_errors += 1

    def _stream(self, c, raw: str, name: str, cbdata) -> int | None:
        cls = self._params.get(raw)
        if cls is None:
            cls = self._params[raw] = getattr(c, _params_class_name(raw), None)
        if cls is None:
            return None
        try:
            p = cls.from_ptr(cbdata.function_params, readonly=True)
            s = getattr(p, "h_stream", None)
            if s is None:
                s = getattr(p, "stream", None)
            return None if s is None else int(s)
        except Exception:
            return None


def _status_name(c, status, exc) -> str:
    try:
        return c.Result(int(status)).name
    except Exception:
        return str(exc) or type(exc).__name__


_HUB = _Hub()


# --- one capture's watch ---------------------------------------------------------------------------------------------
@dataclass
class CuptiWatch:
    """CUPTI's log of one explained capture. ``start()`` subscribes (or joins the process's subscription),
    ``arm()`` starts keeping calls (after cuStreamBeginCapture), ``stop()`` unsubscribes (idempotent).
    ``culprit(...)`` picks the call that broke the capture from the log."""

    lib: CuptiLibrary
    capture_thread: int = field(default_factory=threading.get_ident)
    MAX_CALLS = 4096
    calls: list = field(default_factory=list)
    total: int = 0
    armed: bool = False
    started: bool = False
    _last_by_thread: dict = field(default_factory=dict)

    @classmethod
    def load(cls) -> "CuptiWatch":
        """A watch on cupti-python's library (UnsupportedError when it is missing)."""
        return cls(cupti_library())

    def start(self) -> None:
        _HUB.acquire(self)
        self.started = True

    def arm(self) -> None:
        self.armed = True

    def stop(self) -> None:
        self.armed = False
        if self.started:
            self.started = False
            _HUB.release(self)

    def _add(self, call: CuptiCall) -> None:
        if not self.armed:
            return
        self.total += 1
        if len(self.calls) < self.MAX_CALLS:
            self.calls.append(call)
            self._last_by_thread[call.thread] = call

    def mark_door(self, name: str) -> None:
        """The door just made ``name`` in this thread: its CUPTI record (the thread's last) is cugraphlab's."""
        last = self._last_by_thread.get(threading.get_ident())
        if last is not None and not last.door and last.name == normalize(name):
            last.door = True

    @property
    def foreign(self) -> list[CuptiCall]:
        return [c for c in self.calls if not c.door]

    def culprit(self, mode: str, classify) -> tuple[CuptiCall, str] | None:
        """(call, class) of the first call outside the door that returned a capture error (the capturing thread's
        first, then any thread's), else the first synchronizing, legacy-stream or host-copy call of the
        capturing thread (any thread's in GLOBAL mode)."""
        foreign = self.foreign
        mine = [c for c in foreign if c.thread == self.capture_thread]
        for group in (mine, foreign):
            for c in group:
                if c.code in _CAPTURE_CODES:
                    return c, self.kind(c, classify)
        for c in (foreign if mode == "global" else mine):
            kind = self.kind(c, classify)
            if kind in ("sync", "legacy_stream", "host_copy") and c.name not in ("cuStreamBeginCapture",):
                return c, kind
        return None

    def kind(self, c: CuptiCall, classify) -> str:
        """The doctor's class of one logged call."""
        from .calls import _STREAM_ARG

        name = driver_equivalent(c.name)
        code = CODE_NAMES.get(c.code, "") if c.code is not None else ""
        args: tuple = ()
        i = _STREAM_ARG.get(name)
        if c.stream is not None and i is not None:
            args = (None,) * i + (c.stream,)
        if c.stream in (0, 1) and name == "cuLaunchKernelEx":
            name = "cuLaunchKernel"
        kind = classify(name, args, code, other_thread=c.thread != self.capture_thread)
        return kind

    def silent_copies(self) -> list[CuptiCall]:
        """Synchronous host copies outside the door that the driver accepted in the capturing thread: they ran at
        once and are not part of the graph."""
        from .calls import _SILENT_HOST_COPIES

        return [c for c in self.foreign if c.thread == self.capture_thread and c.code == 0
                and driver_equivalent(c.name) in _SILENT_HOST_COPIES]

    def summary(self, limit: int = 12) -> dict:
        """What the diagnosis keeps: the library, how many calls CUPTI reported, the first foreign ones."""
        foreign = self.foreign
        return {"library": self.lib.describe(), "calls": self.total, "kept": len(self.calls),
                "foreign": len(foreign), "callback_errors": _HUB.callback_errors,
                "log": [c.line() for c in foreign[:limit]]}
