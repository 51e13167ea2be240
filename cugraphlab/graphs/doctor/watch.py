"""The stack watch: what ``cugraphlab doctor`` records of the captures PyTorch, CuPy and cuda.core make
(graphs.doctor.stacks explains it). Installed for a run by ``watching_stacks()`` (graphs.doctor.run_explained):
the stacks' capture calls patched from their import on (graphs.doctor.patches), a trace function armed only while a
capture is open (exceptions raised in the user's files), threading.excepthook, the script's own exception chain; at
the end, a capture the script left open is ended (cuStreamEndCapture) and every patch undone."""
from __future__ import annotations

import importlib.abc
import importlib.util
import linecache
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING, Callable, Literal

from .findings import Diagnosis
from .frames import _quiet, _stack_of_exception, _tb_site, _text, _user_site, is_user_file
from .patches import StackPatches
from .stacks import _IGNORED, StackEvent, _is_capture_code, code_of, explain_events

if TYPE_CHECKING:
    from .launches import LaunchWatch

__all__ = ["StackWatch", "watching_stacks", "LAST"]

class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``patch(module)`` right after one of ``targets`` has been imported."""

    def __init__(self, targets: dict):
        self.targets = targets
        self.busy: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.targets or fullname in self.busy:
            return None
        self.busy.add(fullname)
        try:
            spec = importlib.util.find_spec(fullname)
        except (ImportError, ValueError):
            spec = None
        finally:
            self.busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        loader, patch = spec.loader, self.targets[fullname]
        run = loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            return None
        return spec


class StackWatch(StackPatches):
    """Records StackEvents while installed (``install`` / ``uninstall``; ``watching_stacks()`` does both)."""

    def __init__(self, replay: bool = False):
        self.replay = replay  # also the replay watch of cugraphlab's own graphs (graphs.doctor.launches)
        self.launches: LaunchWatch | None = None
        self.events: list[StackEvent] = []
        self.lock = threading.RLock()
        self.open: dict[int, dict] = {}  # capture number -> {"key", "stream", "thread", "t0", "stack"}
        self.by_key: dict[int, int] = {}  # id(graph or stream object) -> open capture number
        self.replays: dict[int, list] = {}  # id(graph) -> [stack, file, line, function, replays]
        self.pool_before: dict[int, int | None] = {}  # id(graph) -> torch's reserved bytes at its capture_begin
        self.inputs: dict[int, tuple] = {}  # id(graph) -> (capture number, [(name, weakref, shape, dtype, ptr)])
        self.kept: dict[int, BaseException] = {}  # the exceptions recorded (identity, for seen-before)
        self.ev_exc: dict[int, BaseException] = {}  # id(raise event) -> its exception
        self.restore: list = []
        self.finder: _AfterImport | None = None
        self.traced = False
        self.prev_trace = None
        self.prev_excepthook: Callable | None = None
        self.count = 0
        self.patched: list[str] = []
        self.callback_threads: set[int] = set()

    # ---- recording -----------------------------------------------------------------------------------------------
    def _add(self, ev: StackEvent) -> None:
        with self.lock:
            if len(self.events) < 10000:
                self.events.append(ev)

    def current_capture(self) -> int:
        with self.lock:
            return max(self.open) if self.open else 0

    @_quiet()
    def begin(self, stack: str, key: int, stream, mode: str, frame, note: str = "") -> None:
        file, line, fn = _user_site(frame)
        with self.lock:
            self.count += 1
            cid = self.count
            self.open[cid] = {"key": key, "stream": stream, "thread": threading.get_ident(),
                              "t0": time.perf_counter(), "stack": stack, "site": (file, line)}
            self.by_key[key] = cid
        self._add(StackEvent("begin", stack, file, line, fn, stream=_hex(stream), mode=mode, call=str(key), text=note,
                             thread=threading.current_thread().name, capture=cid))
        self._arm()

    @_quiet()
    def end(self, stack: str, key: int, frame, exc: BaseException | None = None, mem: int = 0) -> None:
        with self.lock:
            cid = self.by_key.pop(key, 0)
            info = self.open.pop(cid, None)
        if info is None:
            return
        file, line, fn = _user_site(frame)
        self._add(StackEvent("end", stack, file, line, fn, text=_text(exc) if exc else "",
                             code=code_of(str(exc), exc) if exc else "", ok=exc is None, capture=cid,
                             stream=_hex(info["stream"]), seconds=time.perf_counter() - info["t0"], mem=mem))
        if exc is not None:  # raised below the user's frames (the patched end): the end's line is the user's
            site = _tb_site(exc.__traceback__)
            self.raised(exc, site if site[0] or not file else (file, line, fn), capture=cid)
        if not self.open:
            self._disarm()

    @_quiet()
    def raised(self, exc: BaseException, frame_site=None, *, capture: int | None = None, thread: str | None = None,
               in_callback: bool = False) -> None:
        if type(exc).__name__ in _IGNORED or self.kept.get(id(exc)) is exc:
            return
        self.kept[id(exc)] = exc  # kept alive while the watch lives: an id is never reused for another one
        file, line, fn = frame_site if frame_site else _tb_site(exc.__traceback__)
        text = _text(exc)
        code = code_of(str(exc), exc)
        cid = self.current_capture() if capture is None else capture
        ident = threading.get_ident()
        capture_thread = True
        with self.lock:
            info = self.open.get(cid)
            if info is not None and info["thread"] != ident and not in_callback:
                capture_thread = False
            elif info is None and not in_callback and threading.current_thread() is not threading.main_thread():
                capture_thread = False  # no capture known (a stack the watch could not patch): captures most
                #                         often begin in the main thread
        source = linecache.getline(file, line).strip() if file else ""
        ev = StackEvent("raise", _stack_of_exception(exc, source), file, line, fn, text=text, code=code,
                             thread=thread or threading.current_thread().name, capture_thread=capture_thread,
                             capture=cid, in_callback=in_callback,
                             stream=_hex(info["stream"]) if info else "")
        self.ev_exc[id(ev)] = exc
        self._add(ev)

    @_quiet()
    def post_mortem(self, exc: BaseException) -> None:
        """The script's own exception: its __cause__/__context__ chain, innermost (first raised) first."""
        chain: list[BaseException] = []
        e: BaseException | None = exc
        seen: set[int] = set()
        while e is not None and id(e) not in seen:
            seen.add(id(e))
            chain.append(e)
            e = e.__cause__ or e.__context__
        failed = self._last_failed()
        with self.lock:
            for ev in self.events:
                if ev.kind == "raise" and ev.capture and any(self.ev_exc.get(id(ev)) is e for e in chain):
                    ev.escaped = True
        for e in reversed(chain):
            coded = _is_capture_code(code_of(str(e), e))
            self.raised(e, capture=None if self.open else (failed if coded else 0))

    def _last_failed(self) -> int:
        """The last capture that ended with an error (0: none): where an exception seen only afterwards belongs."""
        with self.lock:
            failed = [e.capture for e in self.events if e.kind == "end" and not e.ok]
        return failed[-1] if failed else 0

    # ---- tracing while a capture is open ---------------------------------------------------------------------------
    @_quiet()
    def _global_trace(self, frame, event, arg):
        if event == "call" and is_user_file(frame.f_code.co_filename):
            frame.f_trace_lines = False
            return self._local_trace
        return None

    @_quiet(lambda self: self._local_trace)
    def _local_trace(self, frame, event, arg):
        if event == "exception" and self.open:
            from .calls import _short_path

            self.raised(arg[1], (_short_path(frame.f_code.co_filename), frame.f_lineno, frame.f_code.co_name))
        return self._local_trace

    def _arm(self) -> None:
        if self.traced:
            return
        prev = sys.gettrace()
        if prev is not None:  # a debugger or coverage: leave it alone (the post-mortem path still works)
            return
        self.traced = True
        sys.settrace(self._global_trace)
        threading.settrace(self._global_trace)
        f: FrameType | None = sys._getframe(1)
        while f is not None:
            if is_user_file(f.f_code.co_filename):
                f.f_trace_lines = False
                f.f_trace = self._local_trace
            f = f.f_back

    def _disarm(self) -> None:
        if not self.traced:
            return
        self.traced = False
        if sys.gettrace() == self._global_trace:
            sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
        f: FrameType | None = sys._getframe(1)
        while f is not None:
            if f.f_trace == self._local_trace:
                f.f_trace = None
            f = f.f_back

    def _excepthook(self, args) -> None:
        if args.exc_value is not None:
            self.raised(args.exc_value, thread=args.thread.name if args.thread else None)
        if self.prev_excepthook is not None:
            self.prev_excepthook(args)

    # ---- patching the stacks -----------------------------------------------------------------------------------

    def install(self) -> StackWatch:
        is_user_file.cache_clear()  # files registered with treat_as_user_code since the last run
        targets = {"torch": self.patch_torch, "cupy": self.patch_cupy, "cuda.core": self.patch_cuda_core,
                   "cuda.core.experimental": self.patch_cuda_core}
        for name, patch in targets.items():
            if name in sys.modules:
                try:
                    patch(sys.modules[name])
                except Exception:
                    pass
        self.finder = _AfterImport({k: self._safe(v) for k, v in targets.items()})
        sys.meta_path.insert(0, self.finder)
        try:
            self.patch_host_callbacks()
        except Exception:
            pass
        self.prev_excepthook = threading.excepthook
        threading.excepthook = self._excepthook
        if self.replay:
            from .launches import LaunchWatch

            self.launches = LaunchWatch(self._add).install()
        return self

    @staticmethod
    def _safe(patch):
        def run(module):
            try:
                patch(module)
            except Exception:
                pass
        return run

    @_quiet()
    def close_open(self) -> None:
        """End the captures the script left open (cuStreamEndCapture on their streams), so that the process does
        not tear down while a stream captures."""
        with self.lock:
            left = dict(self.open)
        for cid, info in left.items():
            with self.lock:
                self.open.pop(cid, None)
                self.by_key.pop(info["key"], None)
            try:
                from ...core._calls import driver_module

                d = driver_module()
                if info["stream"]:
                    r = d.cuStreamEndCapture(d.CUstream(int(info["stream"])))
                    if r[0] == 0 and r[1] is not None and int(r[1]):
                        d.cuGraphDestroy(r[1])
            except Exception:
                pass
        self._disarm()

    def uninstall(self) -> None:
        self.close_open()
        if self.launches is not None:
            self.launches.uninstall()
            self.launches = None
        self._flush_replays()
        self.kept.clear()  # the events keep the text; the exceptions (and their frames) go
        self.ev_exc.clear()
        if self.finder is not None and self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
        for owner, name, old in reversed(self.restore):
            try:
                if old is None:
                    delattr(owner, name)
                else:
                    setattr(owner, name, old)
            except (AttributeError, TypeError):
                pass
        self.restore.clear()
        if self.prev_excepthook is not None:
            threading.excepthook = self.prev_excepthook
            self.prev_excepthook = None

    @_quiet(lambda self: [])
    def diagnoses(self) -> list[Diagnosis]:
        return explain_events(self.events)


def _hex(h) -> str:
    try:
        return hex(int(h)) if h is not None else ""
    except (TypeError, ValueError):
        return str(h)


class watching_stacks:
    """Context manager: a StackWatch installed for the block (``as w``: the watch); ``replay``: with the replay watch
    of cugraphlab's own graphs too (graphs.doctor.launches)."""

    def __init__(self, replay: bool = False):
        self.watch = StackWatch(replay)

    def __enter__(self) -> StackWatch:
        return self.watch.install()

    def __exit__(self, *exc) -> Literal[False]:
        global LAST
        self.watch.uninstall()
        LAST = self.watch
        return False


LAST: StackWatch | None = None  # the watch of the last run_explained (what --replay reads)
