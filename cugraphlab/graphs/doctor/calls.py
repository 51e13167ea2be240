"""What the capture doctor and its CUPTI mode both need: which class of mistake a refused call is, which stream a
call works on, and where a call came from (the first frame outside cugraphlab).

``classify`` reads a call's name first, then its stream, then the result code (graphs.doctor's MISTAKES keys);
``CallSite`` walks the Python frames out of the package; ``_local.busy`` marks the doctor's own driver calls, which
neither watcher counts. Kept apart so that graphs.doctor and graphs.doctor.cupti import it and not each other.
"""
from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["classify", "stream_of", "CallSite", "treat_as_user_code"]

_local = threading.local()  # .busy: the doctor's own driver calls are not watched

_SYNC = {"cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuMemcpy", "cuMemcpyPeer",
         "cuMemcpy2D", "cuMemcpy3D", "cuMemcpyDtoD", "cuMemsetD8", "cuMemsetD16", "cuMemsetD32"}
_HOST_COPY = {"cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyHtoA", "cuMemcpyAtoH", "cuMemcpyHtoDAsync",
              "cuMemcpyDtoHAsync"}
_ALLOCATION = {"cuMemAlloc", "cuMemAllocPitch", "cuMemAllocManaged", "cuMemAllocHost", "cuMemHostAlloc",
               "cuMemFree", "cuMemFreeHost", "cuMemHostRegister", "cuMemHostUnregister", "cuMemCreate",
               "cuMemMap", "cuMemUnmap", "cuMemRelease", "cuArrayCreate", "cuModuleLoadData", "cuModuleUnload"}
_QUERY = {"cuEventQuery", "cuStreamQuery"}
# Synchronous host copies: refused in a capture on some drivers, accepted (run at once, outside the graph) on others.
_SILENT_HOST_COPIES = {"cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyHtoA", "cuMemcpyAtoH"}
# Which argument of a call is its stream (cuLaunchKernelEx carries it in its config).
_STREAM_ARG = {"cuLaunchKernel": 8, "cuMemcpyHtoDAsync": 3, "cuMemcpyDtoHAsync": 3, "cuMemcpyDtoDAsync": 3,
               "cuMemsetD32Async": 3, "cuMemsetD16Async": 3, "cuMemsetD8Async": 3, "cuEventRecord": 1,
               "cuEventRecordWithFlags": 1, "cuStreamWaitEvent": 0, "cuGraphLaunch": 1, "cuGraphUpload": 1,
               "cuStreamSynchronize": 0, "cuStreamQuery": 0, "cuLaunchHostFunc": 0, "cuMemAllocAsync": 1,
               "cuMemFreeAsync": 1, "cuStreamBeginCapture": 0, "cuStreamEndCapture": 0}
_LEGACY = (0, 1)  # NULL and CU_STREAM_LEGACY; CU_STREAM_PER_THREAD (2) does not wait for other streams


def _as_int(h) -> int | None:
    try:
        return int(h)
    except Exception:
        return None


def stream_of(name: str, args: tuple) -> int | None:
    """The stream handle (int) a call works on, or None for calls without one."""
    if name == "cuLaunchKernelEx" and args:
        return _as_int(getattr(args[0], "hStream", None))
    i = _STREAM_ARG.get(name)
    return _as_int(args[i]) if i is not None and i < len(args) else None


def classify(name: str, args: tuple, code: str, *, other_thread: bool = False, event_in_other_capture: bool = False,
             pageable: bool = False) -> str:
    """The MISTAKES key for a call that broke a capture: the call's name decides first, then its stream, then the
    result code. ``other_thread``: made by a thread other than the capturing one."""
    if other_thread:
        return "query_or_thread"
    if name in _SYNC:
        return "sync"
    if name in ("cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyHtoA", "cuMemcpyAtoH") or (name in _HOST_COPY and pageable):
        return "host_copy"
    if name in _ALLOCATION:
        return "allocation"
    if name in _QUERY:
        return "query_or_thread"
    if name == "cuStreamWaitEvent" and (event_in_other_capture or code in (
            "CUDA_ERROR_STREAM_CAPTURE_MERGE", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "CUDA_ERROR_CAPTURED_EVENT")):
        return "isolation"
    if code == "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT" or stream_of(name, args) in _LEGACY:
        return "legacy_stream"
    if name in _HOST_COPY:
        return "host_copy"
    if code in ("CUDA_ERROR_STREAM_CAPTURE_MERGE", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "CUDA_ERROR_CAPTURED_EVENT"):
        return "isolation"
    if code == "CUDA_ERROR_STREAM_CAPTURE_UNJOINED":
        return "unjoined"
    if code == "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD":
        return "wrong_thread"
    return "other"


# --- where a call came from: the first frame outside cugraphlab -------------------------------------------------
_PACKAGE = str(Path(__file__).resolve().parents[2]) + os.sep
_USER_CODE: set[str] = set()


def treat_as_user_code(path: str) -> None:
    """Count frames of the file ``path`` as the user's, though it lies inside cugraphlab (the gallery's cases)."""
    _USER_CODE.add(str(Path(path).resolve()))
    _is_library.cache_clear()


@functools.lru_cache(maxsize=4096)
def _is_library(filename: str) -> bool:
    if not filename.startswith(_PACKAGE):
        try:
            filename = str(Path(filename).resolve())
        except OSError:
            return False
        if not filename.startswith(_PACKAGE):
            return False
    return filename not in _USER_CODE and str(Path(filename).resolve()) not in _USER_CODE


@dataclass(frozen=True)
class CallSite:
    """A Python frame: file, line and function (the first frame outside cugraphlab)."""

    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}, in {self.function}"

    @classmethod
    def of(cls, frame) -> "CallSite | None":
        f, last = frame, frame
        while f is not None and _is_library(f.f_code.co_filename):
            last, f = f, f.f_back
        f = f or last
        return None if f is None else cls(_short_path(f.f_code.co_filename), f.f_lineno, f.f_code.co_name)

    @classmethod
    def of_traceback(cls, tb) -> "CallSite | None":
        """The deepest frame of a traceback outside cugraphlab (where the user's line raised)."""
        site = None
        while tb is not None:
            if not _is_library(tb.tb_frame.f_code.co_filename):
                site = cls(_short_path(tb.tb_frame.f_code.co_filename), tb.tb_lineno, tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        return site


@functools.lru_cache(maxsize=1024)
def _short_path(filename: str) -> str:
    try:
        rel = os.path.relpath(filename)
        return rel if not rel.startswith("..") else filename
    except ValueError:
        return filename
