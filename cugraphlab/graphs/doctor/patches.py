"""The stack watch's patches (graphs.doctor.watch): PyTorch's CUDAGraph capture_begin / capture_end / replay,
CuPy's Stream.begin_capture / end_capture, cuda.core's GraphBuilder.begin_building / end_building, and cugraphlab's
Python host callbacks (a driver call made from one is recorded). A class it cannot patch (a Cython type) is left
alone: the exceptions of its captures still reach the doctor, through the script's own traceback."""
from __future__ import annotations

import sys
import threading
import time
from typing import Any

from .frames import _quiet, _user_site, is_user_file
from .stacks import StackEvent

__all__ = ["StackPatches"]

_OPTIMIZED = 0x1  # inspect.CO_OPTIMIZED: a function's frame (its f_locals a snapshot), not a module's or a class's


class StackPatches:
    """The patching half of StackWatch (a mixin: ``self`` is the watch, which sets these in its ``__init__``)."""

    restore: list
    patched: list[str]
    lock: Any  # threading.RLock
    by_key: dict[int, int]
    inputs: dict[int, tuple]
    events: list[StackEvent]
    replays: dict[int, list]
    pool_before: dict[int, int | None]

    def _add(self, ev: StackEvent) -> None:
        raise NotImplementedError  # StackWatch records it

    def _set(self, owner, name: str, value) -> bool:
        old = owner.__dict__.get(name, None) if hasattr(owner, "__dict__") else None
        try:
            setattr(owner, name, value)
        except (AttributeError, TypeError):
            return False
        self.restore.append((owner, name, old))
        return True

    def _ending(self, stack: str, end0):
        """``end0`` (a stack's end-of-capture method) wrapped: the watch is told of the end, with the exception it
        raised if it raised, from the caller's frame; the result and the exception pass through untouched."""
        watch = self

        def end(owner, *args, **kwargs):
            try:
                out = end0(owner, *args, **kwargs)
            except BaseException as e:
                watch.end(stack, id(owner), sys._getframe(1), e)
                raise
            watch.end(stack, id(owner), sys._getframe(1))
            return out

        return end

    def patch_torch(self, torch) -> None:
        graphs = getattr(getattr(torch, "cuda", None), "graphs", None)
        cls = getattr(graphs, "CUDAGraph", None)
        if cls is None or "torch" in self.patched:
            return
        watch, begin0, end0, replay0 = self, cls.capture_begin, cls.capture_end, getattr(cls, "replay", None)

        def capture_begin(g, *args, **kwargs):
            mode = kwargs.get("capture_error_mode", args[1] if len(args) > 1 else "global")
            held = watch.bound_tensors(torch, sys._getframe(1))  # before the capture begins: see bound_tensors
            begin0(g, *args, **kwargs)
            note = ""
            try:
                current = torch.cuda.current_stream()
                stream = current.cuda_stream
                if current.device.index != torch.cuda.current_device():
                    note = (f"device mismatch: the capture stream is on cuda:{current.device.index}, the current "
                            f"device is cuda:{torch.cuda.current_device()}")
            except Exception:
                stream = None
            watch.begin("torch", id(g), stream, str(mode), sys._getframe(1), note=note)
            watch.remember_inputs(id(g), held)
            watch.pool_before[id(g)] = _reserved(torch)

        def capture_end(g, *args, **kwargs):
            try:
                out = end0(g, *args, **kwargs)
            except BaseException as e:
                watch.end("torch", id(g), sys._getframe(1), e)
                raise
            before = watch.pool_before.pop(id(g), None)
            after = _reserved(torch)
            grown = after - before if before is not None and after is not None else 0
            watch.end("torch", id(g), sys._getframe(1), mem=max(0, grown))
            return out

        def replay(g, *args, **kwargs):
            watch.replayed("torch", id(g), sys._getframe(1))
            watch.check_inputs(id(g), sys._getframe(1))
            t0 = time.perf_counter_ns()
            try:
                return replay0(g, *args, **kwargs)
            finally:
                watch.replay_cost(id(g), time.perf_counter_ns() - t0)

        if self._set(cls, "capture_begin", capture_begin) and self._set(cls, "capture_end", capture_end):
            if replay0 is not None:
                self._set(cls, "replay", replay)
            self.patched.append("torch")

    def patch_cupy(self, cupy) -> None:
        cls = getattr(getattr(cupy, "cuda", None), "Stream", None)
        if cls is None or "cupy" in self.patched:
            return
        watch, begin0, end0 = self, getattr(cls, "begin_capture", None), getattr(cls, "end_capture", None)
        if begin0 is None or end0 is None:
            return
        names = {0: "global", 1: "thread_local", 2: "relaxed", None: "relaxed"}

        def begin_capture(s, *args, **kwargs):
            mode = kwargs.get("mode", args[0] if args else None)
            begin0(s, *args, **kwargs)
            watch.begin("cupy", id(s), getattr(s, "ptr", None), names.get(mode, str(mode)), sys._getframe(1))

        if self._set(cls, "begin_capture", begin_capture) and \
                self._set(cls, "end_capture", self._ending("cupy", end0)):
            self.patched.append("cupy")

    def patch_cuda_core(self, module) -> None:
        cls = getattr(module, "GraphBuilder", None)
        if cls is None or "cuda.core" in self.patched:
            return
        watch, begin0, end0 = self, getattr(cls, "begin_building", None), getattr(cls, "end_building", None)
        if begin0 is None or end0 is None:
            return

        def begin_building(b, *args, **kwargs):
            mode = kwargs.get("mode", args[0] if args else "relaxed")
            out = begin0(b, *args, **kwargs)
            stream = None
            try:
                stream = int(b.stream.handle) if hasattr(b, "stream") else None  # never the graph's handle
            except Exception:
                pass
            watch.begin("cuda.core", id(b), stream, str(mode), sys._getframe(1))
            return out

        if self._set(cls, "begin_building", begin_building) and \
                self._set(cls, "end_building", self._ending("cuda.core", end0)):
            self.patched.append("cuda.core")

    def patch_host_callbacks(self) -> None:
        from .. import host

        watch, make0 = self, host._python_trampoline

        def trampoline(fn):
            def watched():
                ident = threading.get_ident()

                @_quiet()
                def observer(name, args, result, frame):
                    if threading.get_ident() != ident:
                        return
                    status = result[0] if isinstance(result, tuple) and result else result
                    code = getattr(status, "name", "") if not isinstance(result, BaseException) else \
                        getattr(result, "name", type(result).__name__)
                    file, line, func = _user_site(frame) if frame is not None else ("", 0, "")
                    watch._add(StackEvent("call", "cugraphlab", file, line, func, call=name, code=str(code),
                                          thread="host callback", in_callback=True,
                                          capture=watch.current_capture()))

                from ...core._calls import add_observer, remove_observer

                add_observer(observer)
                try:
                    fn()
                except BaseException as e:
                    watch.raised(e, thread="host callback", in_callback=True)
                    raise
                finally:
                    remove_observer(observer)

            return make0(watched)

        if self._set(host, "_python_trampoline", trampoline):
            self.patched.append("cugraphlab.host")

    @_quiet(lambda self: [])
    def bound_tensors(self, torch, frame) -> list:
        """The CUDA tensors bound to names in the user's frame that begins a capture, by weak reference: a replay
        after one of them was freed reads memory PyTorch's cache may have given to another tensor (triton #3166).

        Read BEFORE the capture begins, and without keeping anything alive: before Python 3.13 a function frame's
        ``f_locals`` is a snapshot dict cached on the frame, refreshed at each read, so reading it keeps every value
        it holds alive until the next read. A graph or tensor the script has dropped since the last read (a loop
        that re-captures into a new CUDAGraph) is then freed at that next read: inside a capture, its destructor's
        CUDA calls invalidate the capture (pytorch #171672's case, the H200 run), and a captured tensor the script
        rebound stays alive, so its stale replay went unseen (triton #3166's case). So the read comes first, and the
        tensors taken are dropped from the snapshot again."""
        import weakref

        f = frame
        while f is not None and not is_user_file(f.f_code.co_filename):
            f = f.f_back
        if f is None:
            return []
        tensor = getattr(torch, "Tensor", None)
        snapshot = f.f_locals
        held = []
        for name, value in list(snapshot.items())[:4096]:
            if tensor is not None and isinstance(value, tensor) and getattr(value, "is_cuda", False):
                try:
                    held.append((name, weakref.ref(value), tuple(getattr(value, "shape", ())),
                                 str(getattr(value, "dtype", "")), int(value.data_ptr())))
                except (TypeError, RuntimeError):
                    continue
        if type(snapshot) is dict and snapshot is not f.f_globals and f.f_code.co_flags & _OPTIMIZED:
            for name, ref, *_ in held:  # the snapshot's own references (the frame's variables are untouched)
                if snapshot.get(name) is ref():
                    del snapshot[name]
        return held

    @_quiet()
    def remember_inputs(self, key: int, held: list) -> None:
        """``bound_tensors``' list, kept for the capture of the graph ``key`` (check_inputs reads it)."""
        with self.lock:
            self.inputs[key] = (self.by_key.get(key, 0), held)

    @_quiet()
    def check_inputs(self, key: int, frame) -> None:
        """Before a replay: a tensor remembered at the capture that has been freed since (reported once)."""
        with self.lock:
            cid, held = self.inputs.get(key, (0, []))
            dead = [h for h in held if h[1]() is None]
        if not dead:
            return
        # outside the lock: the allocator's snapshot is not the watch's; taken once per freed tensor, not per replay
        kept = _in_graph_pools(sys.modules.get("torch"), [h[4] for h in dead])
        dead = [h for h in dead if h[4] not in kept]
        with self.lock:
            if not dead:  # every freed one lives in a graph's pool: forget them, the next replays skip the snapshot
                if key in self.inputs:
                    self.inputs[key] = (cid, [h for h in held if h[4] not in kept or h[1]() is not None])
                return
            self.inputs.pop(key, None)
        file, line, fn = _user_site(frame)
        name, _, shape, dtype, ptr = dead[0]
        begin = next((e for e in self.events if e.kind == "begin" and e.capture == cid), None)
        self._add(StackEvent(
            "stale", "torch", begin.file if begin else file, begin.line if begin else line,
            begin.function if begin else fn, call=name, capture=cid, source=f"replayed at {file}:{line}",
            text=f"the tensor {name!r} ({'x'.join(map(str, shape)) or 'scalar'} {dtype} at {hex(ptr)}) was bound "
                 f"when the graph was captured and has been freed since; the replay at {file}:{line} reads the memory "
                 f"it left" + (f" (and {len(dead) - 1} more: {', '.join(h[0] for h in dead[1:4])})"
                               if len(dead) > 1 else "")))

    @_quiet()
    def replayed(self, stack: str, key: int, frame) -> None:
        """Counted per graph (one event each at the end: a training loop's replays never fill the log)."""
        with self.lock:
            n = self.replays.get(key)
            if n is None:
                file, line, fn = _user_site(frame)
                self.replays[key] = [stack, file, line, fn, 1, 0]
            else:
                n[4] += 1

    @_quiet()
    def replay_cost(self, key: int, ns: int) -> None:
        """The host ns of one replay call (perf_counter_ns around it), added to its graph's."""
        with self.lock:
            n = self.replays.get(key)
            if n is not None:
                n[5] += ns

    @_quiet()
    def _flush_replays(self) -> None:
        with self.lock:
            done, self.replays = self.replays, {}
        for key, (stack, file, line, fn, count, ns) in done.items():
            self._add(StackEvent("replay", stack, file, line, fn, call=str(key), count=count, seconds=ns / 1e9))


def _in_graph_pools(torch, ptrs: list[int]) -> set[int]:
    """Of the freed tensors' addresses ``ptrs``, those that lie in a segment of a CUDA graph's private memory pool
    (PyTorch's ``memory_snapshot()``: ``segment_pool_id`` other than (0, 0)). A tensor made inside a capture (a
    graph's output or intermediate) lives in that graph's pool, and the pool keeps its memory while the graph
    lives: dropping the Python tensor hands the memory to no other tensor outside a capture into that pool, so a
    replay of another graph captured while it was bound reads nothing stale (the capstone's ``t_out``, bound when
    its second graph was captured and dropped after). Empty where PyTorch cannot say (then every freed tensor is
    reported, as before)."""
    if torch is None or not ptrs:
        return set()
    try:
        segments = torch.cuda.memory_snapshot()
    except Exception:  # noqa: BLE001 - an older PyTorch, or no CUDA: nothing is known to be kept
        return set()
    kept: set[int] = set()
    for seg in segments:
        pool = tuple(seg.get("segment_pool_id") or (0, 0))
        if pool == (0, 0):
            continue
        base, size = int(seg.get("address", 0)), int(seg.get("total_size", 0))
        kept.update(p for p in ptrs if base <= p < base + size)
    return kept


def _reserved(torch) -> int | None:
    """What PyTorch's caching allocator has reserved on the current device (memory_stats'
    "reserved_bytes.all.current"): its growth over a capture is the graph's private pool."""
    try:
        return int(torch.cuda.memory_stats().get("reserved_bytes.all.current", 0))
    except Exception:
        return None
