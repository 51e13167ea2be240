"""The watcher of one capture made through cugraphlab (``Doctor``): after every driver call of the package's one
door (``core._calls``) it asks the driver about every stream it knows in the capture, and names the first call that
broke it (the method: graphs.doctor's docstring).
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from ...core._calls import _short_args, add_observer, cu, driver_module, remove_observer, stream_capture_info
from .calls import (
    _HOST_COPY,
    _LEGACY,
    _SILENT_HOST_COPIES,
    CallSite,
    _as_int,
    _local,
    classify,
    stream_of,
)
from .cupti import driver_equivalent
from .findings import CAPTURE_ERRORS, Diagnosis, Finding
from .forks import open_dependencies
from .launches import capture_ended
from .process import record

__all__ = ["Doctor"]

_INVALIDATED = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"


# --- the watcher ----------------------------------------------------------------------------------------------------
@dataclass
class _Seen:
    name: str
    args: tuple  # raw: formatted only for a finding
    result: str
    where: CallSite | None
    thread: str
    capture_thread: bool


# event handle -> id of the capture it was last recorded in (0: outside any), as seen by any doctor, so that a
# capture begun later can tell that an event came from another capture. Bounded: re-recording overwrites.
_EVENTS: dict[int, int] = {}


def _code_name(result) -> str:
    if isinstance(result, BaseException):
        return type(result).__name__
    status = result[0] if isinstance(result, tuple) and result else result
    return getattr(status, "name", str(status))


def _status_name(status) -> str:
    return getattr(status, "name", str(status)).replace("CU_STREAM_CAPTURE_STATUS_", "")


class Doctor:
    """Watches one capture on ``stream`` (a Stream) in ``mode`` ("global", "thread_local", "relaxed").

    ``begin()`` calls cuStreamBeginCapture and starts watching; ``end(exc)`` looks at the open dependency sets,
    calls cuStreamEndCapture and returns ``(raw result tuple, Diagnosis)``. ``graphs.capture(stream, explain=True)``
    drives it; use it directly only to watch a capture begun some other way.
    """

    MAX_LATER = 8

    def __init__(self, stream, mode: str = "thread_local", cupti: bool = False, into: tuple | None = None):
        self.stream = stream
        self.into = into  # (graph, deps, edge data): begin with cuStreamBeginCaptureToGraph (graphs.capture_into)
        self.mode = mode
        self.origin = int(stream.handle)
        self.streams: dict[int, str] = {self.origin: "ACTIVE"}  # every stream known in the capture -> last status
        self.events = _EVENTS  # event -> capture id it was last recorded in (0: none), shared by all doctors
        self.capture_id = 0
        self.thread = threading.get_ident()
        self.thread_name = threading.current_thread().name
        self.fork_sites: dict[int, str] = {}  # stream -> where it was forked into the capture
        self.culprit: Finding | None = None
        self.pending: _Seen | None = None  # a refused call on another thread, not yet known to have hurt us
        self.last: _Seen | None = None
        self.later: list[str] = []
        self.silent: list[Finding] = []  # calls the driver accepted that are not part of the graph
        self.calls = 0
        self.active = False
        self.begun_at: CallSite | None = None
        # cupti=True: CUPTI logs every driver call of the process meanwhile (UnsupportedError here without it)
        self.cupti = None
        if cupti:
            from .cupti import CuptiWatch

            self.cupti = CuptiWatch.load()

    # --- driver queries, never watched ------------------------------------------------------------------------
    def _status(self, h: int) -> str:
        d = driver_module()
        r = d.cuStreamIsCapturing(d.CUstream(h))
        return _status_name(r[1]) if r[0] == 0 else _code_name(r)

    def _info(self, h: int) -> tuple:
        return stream_capture_info(driver_module().CUstream(h), raw=True)

    # --- begin / end --------------------------------------------------------------------------------------------
    def begin(self) -> None:
        mode = getattr(driver_module().CUstreamCaptureMode, f"CU_STREAM_CAPTURE_MODE_{self.mode.upper()}")
        self.begun_at = CallSite.of(sys._getframe(1))
        if self.cupti is not None:
            self.cupti.start()  # CuptiBusyError / UnsupportedError before the capture begins
            try:
                self._begin_call(mode)
            except BaseException:
                self.cupti.stop()
                raise
        else:
            self._begin_call(mode)
        info = self._info(self.origin)
        self.capture_id = info[2] if info[0] == 0 else 0
        self.active = True
        if self.cupti is not None:
            self.cupti.arm()  # from here on, every call CUPTI reports is the capture's
        add_observer(self.observe)

    def _begin_call(self, mode) -> None:
        if self.into is None:
            cu("cuStreamBeginCapture", self.stream.handle, mode)
            return
        graph, deps, data = self.into
        cu("cuStreamBeginCaptureToGraph", self.stream.handle, graph, list(deps) or None, data, len(deps), mode)

    def end(self, exc: BaseException | None = None):
        """Stop watching, end the capture; returns (cuStreamEndCapture's result tuple, Diagnosis)."""
        exit_site = CallSite.of(sys._getframe(1))
        _local.busy = True
        try:
            remove_observer(self.observe)
            self.active = False
            if self.culprit is None and exc is not None:
                self._from_exception(exc)  # a refused call the door did not see, named by its exception
            self._check_states(exit_site, at_exit=True)
            unjoined, open_deps = open_dependencies(self)
            result = driver_module().cuStreamEndCapture(self.stream.handle)
            capture_ended(self.stream.handle, result)  # the replay watch, where one runs (graphs.doctor.launches)
        finally:
            _local.busy = False
            if self.cupti is not None:
                self.cupti.stop()  # always unsubscribe
        end_code = _code_name(result)
        findings = [self.culprit] if self.culprit else []
        findings += unjoined
        findings += self.silent
        if end_code == "CUDA_ERROR_STREAM_CAPTURE_UNJOINED" and not unjoined:
            findings.append(Finding("unjoined", "cuStreamEndCapture", result=end_code, where=str(exit_site or ""),
                                    stream=hex(self.origin), seen=False,
                                    detail="a stream the doctor did not see joined the capture and was not joined "
                                           "back (forked by a call outside cugraphlab)"))
        elif end_code not in ("CUDA_SUCCESS",) and not findings:
            kind = "foreign" if end_code == _INVALIDATED else classify("cuStreamEndCapture", (), end_code)
            findings.append(self._named_by_cupti(Finding(
                kind, "?" if kind == "foreign" else "cuStreamEndCapture", result=end_code,
                where=self._between(self.last, exit_site), stream=hex(self.origin), seen=kind != "foreign",
                status_change="invalidated before cuStreamEndCapture")))
        if self.cupti is not None and self.culprit is None:
            findings += self._cupti_silent_copies()
        ok = end_code == "CUDA_SUCCESS" and result[1] is not None and bool(_as_int(result[1]))
        d = Diagnosis(stream=hex(self.origin), mode=self.mode, ok=ok, end_result=end_code, findings=findings,
                      open_dependencies=open_deps, later=list(self.later), calls_seen=self.calls,
                      where=str(self.begun_at or ""),
                      cupti=self.cupti.summary() if self.cupti is not None else {})
        record(d)
        return result, d

    # --- the observer ---------------------------------------------------------------------------------------------
    def observe(self, name: str, args: tuple, result, frame) -> None:
        """Called by core._calls after every driver call made through it (any thread)."""
        if not self.active or getattr(_local, "busy", False):
            return
        _local.busy = True
        try:
            self._observe(name, args, result, frame)
        finally:
            _local.busy = False

    def _observe(self, name, args, result, frame) -> None:
        self.calls += 1
        if self.cupti is not None:
            self.cupti.mark_door(name)
        mine = threading.get_ident() == self.thread
        seen = _Seen(name, args, _code_name(result), CallSite.of(frame),
                     self.thread_name if mine else threading.current_thread().name, mine)
        code = seen.result
        other_capture = self._track(name, args, result)
        touches = self._touches(name, args)
        if self.culprit is None and code in CAPTURE_ERRORS and code != _INVALIDATED:
            if mine or touches or self.mode == "global":
                self.culprit = self._finding(seen, name, args, other_capture)
            elif self.pending is None:
                self.pending = seen
        elif self.culprit is not None and code in CAPTURE_ERRORS and len(self.later) < self.MAX_LATER:
            self.later.append(f"{name} -> {code} at {seen.where}")
        if (mine and code == "CUDA_SUCCESS" and name in _SILENT_HOST_COPIES and self.culprit is None
                and len(self.silent) < self.MAX_LATER):
            self.silent.append(Finding(
                "host_copy", name, _short_args(seen.args), code, str(seen.where or ""), seen.thread,
                detail="the driver accepted it: the copy ran now, on the legacy stream, and is NOT part of the "
                       "graph (a replay will not copy)"))
        forked = _as_int(args[0]) if name == "cuStreamWaitEvent" and args else None
        if forked is not None and forked in self.streams:
            self.fork_sites.setdefault(forked, str(seen.where or ""))
        if mine:
            self._check_states(seen.where, seen=seen, touches=touches)
        self.last = seen if mine else self.last

    def _finding(self, seen: _Seen, name: str, args: tuple, other_capture: bool) -> Finding:
        pageable = name in _HOST_COPY and self._pageable(name, args)
        kind = classify(name, args, seen.result, other_thread=not seen.capture_thread,
                        event_in_other_capture=other_capture, pageable=pageable)
        s = stream_of(name, args)
        detail = ""
        if other_capture:
            detail = "the event was last recorded in another capture"
        elif pageable:
            detail = "the host buffer is pageable (not page-locked)"
        if not seen.capture_thread:
            detail = (detail + "; " if detail else "") + f"made by thread {seen.thread!r}, not the capturing thread"
        return Finding(kind, name, _short_args(seen.args), seen.result, str(seen.where or ""), seen.thread,
                       hex(s) if s is not None else "", detail=detail)

    def _track(self, name: str, args: tuple, result) -> bool:
        """Follow events and streams; True when a wait used an event recorded in another capture."""
        ok = _code_name(result) == "CUDA_SUCCESS"
        if name in ("cuEventRecord", "cuEventRecordWithFlags") and len(args) >= 2 and ok:
            s = _as_int(args[1])
            info = self._info(s) if s not in _LEGACY and s is not None else (1,)
            if len(self.events) > 4096:
                self.events.clear()
            event = _as_int(args[0])
            if event is not None:
                self.events[event] = info[2] if info[0] == 0 and _status_name(info[1]) == "ACTIVE" else 0
            return False
        if name == "cuStreamWaitEvent" and len(args) >= 2:
            s, e = _as_int(args[0]), _as_int(args[1])
            recorded_in = self.events.get(e, 0) if e is not None else 0
            if ok and s is not None and s not in _LEGACY and s not in self.streams:
                info = self._info(s)
                if info[0] == 0 and _status_name(info[1]) == "ACTIVE" and info[2] == self.capture_id:
                    self.streams[s] = "ACTIVE"  # a fork: s joined the capture
            return bool(recorded_in) and recorded_in != self._capture_of(s)
        return False

    def _capture_of(self, s) -> int:
        if s is None or s in _LEGACY:
            return 0
        if s in self.streams:
            return self.capture_id
        info = self._info(s)
        return info[2] if info[0] == 0 and _status_name(info[1]) == "ACTIVE" else 0

    def _touches(self, name: str, args: tuple) -> bool:
        s = stream_of(name, args)
        if s in self.streams:
            return True
        e = _as_int(args[1]) if name == "cuStreamWaitEvent" and len(args) >= 2 else None
        return e is not None and self.events.get(e, 0) == self.capture_id != 0

    def _pageable(self, name: str, args: tuple) -> bool:
        """Whether the host side of an async copy is pageable (cuPointerGetAttribute knows no such address)."""
        host = args[1] if name == "cuMemcpyHtoDAsync" else args[0] if args else None
        try:
            d = driver_module()
            r = d.cuPointerGetAttribute(d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                        d.CUdeviceptr(_as_int(host)))
            return r[0] != 0
        except Exception:
            return False

    def _check_states(self, site, *, seen: _Seen | None = None, touches: bool = False, at_exit: bool = False):
        """Ask the driver about every stream of the capture; an ACTIVE stream that is not ACTIVE any more names a
        culprit: the refused call already found, a refused call of another thread, or an unseen call."""
        for h, before in list(self.streams.items()):
            now = self._status(h)
            self.streams[h] = now
            if before != "ACTIVE" or now == "ACTIVE":
                continue
            change = f"stream {hex(h)}: ACTIVE -> {now}" + (" (seen at the end of the capture)" if at_exit else "")
            if self.culprit is not None:
                if not self.culprit.status_change:
                    self.culprit.status_change = change
                continue
            if self.pending is not None:
                p, self.pending = self.pending, None
                self.culprit = Finding("query_or_thread", p.name, _short_args(p.args), p.result, str(p.where or ""), p.thread,
                                       status_change=change,
                                       detail=f"made by thread {p.thread!r}, not the capturing thread")
            elif seen is not None and seen.result in CAPTURE_ERRORS and seen.result != _INVALIDATED:
                continue  # handled by _observe
            else:  # the call just seen succeeded (or answered INVALIDATED): something unseen came first
                self.culprit = self._named_by_cupti(Finding(
                    "foreign", "?", result=seen.result if seen else "", where=self._between(self.last, site),
                    stream=hex(h), status_change=change, seen=False,
                    detail=(f"noticed after {seen.name} at {seen.where}" if seen else
                            "noticed when the capture ended")))

    def _named_by_cupti(self, finding: Finding) -> Finding:
        """A finding about a call the door did not see, named from CUPTI's log when the CUPTI mode is on."""
        if self.cupti is None:
            return finding
        hit = self.cupti.culprit(self.mode, classify)
        if hit is None:
            finding.detail += ("; " if finding.detail else "") + \
                f"CUPTI logged {len(self.cupti.foreign)} call(s) outside cugraphlab, none refused or synchronizing"
            return finding
        call, kind = hit
        via = f"{call.domain} API" + (f", judged as {driver_equivalent(call.name)}"
                                      if driver_equivalent(call.name) != call.name else "")
        other = call.thread != self.cupti.capture_thread
        detail = (f"named by CUPTI ({via}): made outside cugraphlab, between {finding.where.removeprefix('between ')}"
                  + (f"; made by thread {call.thread_name!r}, not the capturing thread" if other else ""))
        return Finding(kind, call.name, "" if call.stream is None else f"stream={hex(call.stream)}",
                       call.result, call.where, call.thread_name,
                       hex(call.stream) if call.stream is not None else finding.stream,
                       finding.status_change, detail, seen=True)

    def _cupti_silent_copies(self) -> list[Finding]:
        return [Finding("host_copy", c.name, "", c.result, c.where, c.thread_name,
                        detail="named by CUPTI, made outside cugraphlab: the driver accepted it, the copy ran now "
                               "and is NOT part of the graph (a replay will not copy)")
                for c in (self.cupti.silent_copies() if self.cupti is not None else [])[:self.MAX_LATER]]

    def _between(self, before: _Seen | None, after_site) -> str:
        start = f"{before.where} ({before.name})" if before is not None else f"{self.begun_at} (capture begun)"
        return f"between {start} and {after_site}"

    def _from_exception(self, exc: BaseException) -> None:
        """A capture error raised by a call the door did not see (a Launch prepared before the capture)."""
        name = getattr(exc, "name", "")
        if name not in CAPTURE_ERRORS:
            return
        call = getattr(exc, "call", "") or "?"
        site = CallSite.of_traceback(exc.__traceback__)
        kind = classify(call, (), name) if name != _INVALIDATED else "foreign"
        self.culprit = Finding(kind, call, result=name, where=str(site or ""), stream=hex(self.origin),
                               detail="raised by a function looked up before the capture began (not watched)",
                               seen=False if kind == "foreign" else True)
