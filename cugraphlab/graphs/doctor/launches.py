"""The replay watch of cugraphlab's own graphs: what happens to a graph after its capture succeeded.

Installed by ``cugraphlab doctor --replay`` (``run_explained(replay=True)``), it observes every driver call made
through the package's door (``core._calls``) and keeps, per capture site (the user's line that began the capture):
captures, instantiations, launches and exec updates, each with its host cost (perf_counter_ns of the driver call,
from a tracer that keeps only the last call; of a capture, from cuStreamBeginCapture's return to
cuStreamEndCapture's). It reports three hazards as StackEvents of kind "hazard" (graphs.doctor.stacks explains them):

- ``concurrent_launch``: an executable launched on a stream while its previous launch, on another stream, is not
  ordered before it; ``input_race``: an async copy or memset on one stream writes memory the graph reads or writes,
  while a launch of it on another stream is not ordered with the copy (either way round).
  Ordering is the host's view of the streams (graphs.doctor.order: events, waits and host synchronizations).
  The driver itself orders launches of one executable ("each launch is ordered behind ... any previous launches
  of hGraphExec", cuGraphLaunch), so two launches on two streams never run the graph twice at once, but the work
  around them is not ordered: the first stream's reads of the graph's outputs race the second launch.
  The memory a graph touches: the ranges of its captured copies and memsets, and the allocations its captured
  kernels' pointer arguments point into (cuFuncGetParamInfo, CUDA 12.4+, and cuMemGetAddressRange; without them
  only the copies and memsets).
- ``update_refused``: cuGraphExecUpdate refused (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE), with the driver's
  CUgraphExecUpdateResult and the reason in words (graphs.update.UPDATE_REASONS); the site table puts every
  update's cost beside the site's capture + instantiate.

Calls cugraphlab makes without the door (``DirectExecUpdate``, ``NativeGraphLaunch``) are not seen.
"""
from __future__ import annotations

import ctypes
import threading
import time

from .allocations import Allocations
from .frames import _quiet, _user_site
from .order import StreamOrder
from .stacks import StackEvent

__all__ = ["LaunchWatch", "capture_ended", "graph_memory"]

_WRITES = {"cuMemcpyHtoDAsync": (0, 2, 3), "cuMemcpyDtoDAsync": (0, 2, 3),  # name -> (dst, bytes, stream) args
           "cuMemsetD8Async": (0, 2, 3), "cuMemsetD16Async": (0, 2, 3), "cuMemsetD32Async": (0, 2, 3)}
_ELEMENT = {"cuMemsetD16Async": 2, "cuMemsetD32Async": 4}
_READS = {"cuMemcpyDtoDAsync": (1, 2), "cuMemcpyDtoHAsync": (1, 2)}  # name -> (src, bytes) args
_HOST_WAITS = {"cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize", "cuMemcpyHtoD", "cuMemcpyDtoH",
               "cuMemcpy", "cuMemcpyDtoD", "cuMemsetD32", "cuMemsetD8"}
_INSTANTIATE = ("cuGraphInstantiate", "cuGraphInstantiateWithFlags", "cuGraphInstantiateWithParams")
_MAX_WRITES = 256  # per stream: the last async writes kept (older ones are ordered long since, or lost)


def _int(h) -> int:
    try:
        return int(h)
    except (TypeError, ValueError):
        return 0


def _base(name: str) -> str:
    """cuMemcpyHtoDAsync_v2 -> cuMemcpyHtoDAsync (the bindings' versioned names)."""
    head, _, tail = name.rpartition("_v")
    return head if head and tail.isdigit() else name


class LaunchWatch:
    """A door observer (``install`` / ``uninstall``) that hands what it saw to ``sink`` (a StackWatch's ``_add``)
    as StackEvents: "captured", "instantiated", "update", "replay" (one per executable, at the end) and "hazard"."""

    def __init__(self, sink):
        self.sink = sink
        self.lock = threading.RLock()
        self.order = StreamOrder()  # what the host knows is ordered before what (graphs.doctor.order)
        self.allocs = Allocations()  # which allocations are live (graphs.doctor.allocations)
        self.in_capture: dict[int, int] = {}  # event -> the origin stream of the capture it was recorded in
        self.capturing: dict[int, dict] = {}  # stream -> its open capture {"site", "t0", "ranges", "origin"}
        self.graph_of: dict[int, dict] = {}  # captured graph -> {"site", "ranges", "ns"}
        self.execs: dict[int, dict] = {}  # exec -> what the watch keeps of it (_new_exec)
        self.writes: dict[int, list] = {}  # stream -> [(seq, start, end, where)] of its async writes
        self.last_ns = 0  # the host ns of the driver call just observed (the tracer's record)
        self.timer = None
        self.observer = None

    # ---- the door ---------------------------------------------------------------------------------------------------
    def install(self) -> LaunchWatch:
        from ...core._calls import add_observer, tracer, tracing

        if tracer() is None:  # the user's own tracer wins; then costs read 0
            self.timer = tracing(stream=None)
            self.timer.tracer.record = self._timed
        self.observer = _quiet()(self.observe)
        add_observer(self.observer)
        global _ACTIVE
        _ACTIVE = self
        return self

    def uninstall(self) -> None:
        from ...core._calls import remove_observer

        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None
        if self.observer is not None:
            remove_observer(self.observer)
            self.observer = None
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        self.flush()

    def _timed(self, api, args, result, ns) -> None:
        self.last_ns = ns

    # ---- the observer ----------------------------------------------------------------------------------------------
    def observe(self, name: str, args: tuple, result, frame) -> None:
        if isinstance(result, BaseException):
            return
        status = result[0] if isinstance(result, tuple) and result else result
        code = _int(status)
        name = _base(name)
        with self.lock:
            if name == "cuGraphExecUpdate":
                self._update(args, result, code, frame)
                return
            if name == "cuStreamEndCapture":  # ended, also when it failed: the stream no longer captures
                self._end_capture(_int(args[0]), result if code == 0 else (status, None))
                return
            if code != 0:
                return
            if name in ("cuStreamBeginCapture", "cuStreamBeginCaptureToGraph"):
                s = _int(args[0])  # into an existing graph (a conditional body): a part of a graph, not a site
                self.capturing[s] = {"site": _user_site(frame), "t0": time.perf_counter_ns(), "ranges": [],
                                     "allocs": [], "origin": s, "part": name == "cuStreamBeginCaptureToGraph"}
            elif name in _INSTANTIATE:
                self._instantiated(args, result, frame)
            elif name == "cuGraphLaunch":
                self._launch(_int(args[0]), _int(args[1]), frame)
            elif name == "cuEventRecord":
                e, s = _int(args[0]), _int(args[1])
                cap = self.capturing.get(s)
                self.in_capture.pop(e, None)
                if cap is not None:
                    self.in_capture[e] = cap["origin"]
                else:
                    self.order.record(e, s)
            elif name == "cuStreamWaitEvent":
                s, e = _int(args[0]), _int(args[1])
                if e in self.in_capture:  # a fork into a capture
                    origin = self.capturing.get(self.in_capture[e])
                    if origin is not None:
                        self.capturing[s] = origin
                else:
                    self.order.wait(s, e)
            elif name == "cuEventSynchronize" or (name == "cuEventQuery" and code == 0):
                self.order.event_done(_int(args[0]))
            elif name == "cuStreamSynchronize" or (name == "cuStreamQuery" and code == 0):
                self.order.stream_done(_int(args[0]))
            elif name in _HOST_WAITS:
                self.order.host_wait_all()
            elif name in _WRITES or name in _READS:
                self._copy(name, args, frame)
            elif name in ("cuLaunchKernel", "cuLaunchKernelEx"):
                self._kernel(name, args)
            elif name.endswith("Async") and name[:-5] in ("cuMemAlloc", "cuMemFree") and \
                    len(args) > 1 and _int(args[1]) in self.capturing:
                return  # a graph memory node (allocated and freed by the graph at each launch): not the user's
            elif name in ("cuMemAlloc", "cuMemAllocAsync") and isinstance(result, tuple) and len(result) > 1:
                self.allocs.allocated(_int(result[1]), _int(args[0]), _user_site(frame))
            elif name in ("cuMemFree", "cuMemFreeAsync"):
                self.allocs.released(_int(args[0]), _user_site(frame))

    # ---- captures and executables -----------------------------------------------------------------------------------
    def _end_capture(self, s: int, result) -> None:
        cap = self.capturing.get(s)
        if cap is None:
            return
        for k in [k for k, v in self.capturing.items() if v is cap]:
            del self.capturing[k]
        graph = _int(result[1]) if isinstance(result, tuple) and len(result) > 1 else 0
        ns = time.perf_counter_ns() - cap["t0"]
        if cap.get("part") or not graph:  # a conditional body, or a capture that failed: no graph to count
            return
        self.graph_of[graph] = {"site": cap["site"], "ranges": cap["ranges"], "allocs": cap["allocs"], "ns": ns}
        file, line, fn = cap["site"]
        self.sink(StackEvent("captured", "cugraphlab", file, line, fn, call=hex(graph), seconds=ns / 1e9))

    def _instantiated(self, args: tuple, result, frame) -> None:
        exe = _int(result[1]) if isinstance(result, tuple) and len(result) > 1 else 0
        graph = _int(args[0]) if args else 0
        g = self.graph_of.get(graph)
        site = g["site"] if g is not None else _user_site(frame)  # a graph built node by node: where instantiated
        self.execs[exe] = _new_exec(site, g)
        file, line, fn = site
        self.sink(StackEvent("instantiated", "cugraphlab", file, line, fn, call=hex(exe),
                             seconds=self.last_ns / 1e9))

    def _exec(self, exe: int, frame) -> dict:
        x = self.execs.get(exe)
        if x is None:  # instantiated before the watch: its launch line stands for the site
            x = self.execs[exe] = _new_exec(_user_site(frame), None)
        return x

    def _launch(self, exe: int, s: int, frame) -> None:
        if s in self.capturing:  # a child launch recorded into a capture: not a launch now
            return
        x = self._exec(exe, frame)
        where = _user_site(frame)
        if x["last"] is not None and not self.order.ordered(x["last"], s) and "concurrent" not in x["flagged"]:
            x["flagged"].add("concurrent")
            prev_s = x["last"][0]
            self._hazard(x, "concurrent_launch", where,
                         f"launched on stream {hex(s)} at {_at(where)} while its launch on stream {hex(prev_s)} "
                         f"at {_at(x['last_where'])} is not ordered before it (no event of that stream waited "
                         f"for, no synchronization between): the work queued on {hex(prev_s)} after the first "
                         f"launch (reading the graph's outputs, writing its inputs) races the second")
        for lo, hi, generation in x.get("allocs", ()) if "stale" not in x["flagged"] else ():
            changed = self.allocs.changed(lo, hi, generation)
            if changed:
                x["flagged"].add("stale")
                self._hazard(x, "stale_input", where, f"launched at {_at(where)}: a captured kernel's pointer "
                             f"argument {hex(lo)} ({hi - lo} bytes at the capture) {changed}; the launch reads it")
                break
        if x["ranges"] and "race" not in x["flagged"]:
            for ws, writes in self.writes.items():
                if ws == s:
                    continue
                for n, lo, hi, wwhere in reversed(writes):
                    if not self.order.ordered((ws, n), s) and _overlaps(x["ranges"], lo, hi):
                        x["flagged"].add("race")
                        self._hazard(x, "input_race", where,
                                     f"launched on stream {hex(s)} at {_at(where)} while an async write of "
                                     f"{hi - lo} bytes at {hex(lo)} (memory the graph uses) queued on stream "
                                     f"{hex(ws)} at {_at(wwhere)} is not ordered before the launch")
                        break
                if "race" in x["flagged"]:
                    break
        n = self.order.enqueue(s)
        x["last"], x["last_where"] = (s, n), where
        x["launches"] += 1
        x["launch_ns"] += self.last_ns
        if x["launches"] == 1:  # graph memory is mapped at an executable's first launch
            x["mem"] = graph_memory()

    def _copy(self, name: str, args: tuple, frame) -> None:
        touched = []  # (start, end) of what the call writes, then of what it reads
        if name in _WRITES:
            d, b, si = _WRITES[name]
            size, s = _int(args[b]) * _ELEMENT.get(name, 1), _int(args[si])
            touched.append((_int(args[d]), _int(args[d]) + size))
        if name in _READS:
            src, b = _READS[name]
            size, s = _int(args[b]), _int(args[3])
            touched.append((_int(args[src]), _int(args[src]) + size))
        cap = self.capturing.get(s)
        if cap is not None:  # recorded into the graph: memory the graph touches
            cap["ranges"].extend(touched)
            return
        n = self.order.enqueue(s)
        if name not in _WRITES:
            return
        where = _user_site(frame)
        lo, hi = touched[0]
        size = hi - lo
        w = self.writes.setdefault(s, [])
        w.append((n, lo, hi, where))
        del w[:-_MAX_WRITES]
        for x in self.execs.values():  # a write while a launch on another stream may still read or write it
            if x["last"] is None or x["last"][0] == s or "race" in x["flagged"] or not x["ranges"]:
                continue
            if not self.order.ordered(x["last"], s) and _overlaps(x["ranges"], lo, hi):
                x["flagged"].add("race")
                self._hazard(x, "input_race", where,
                             f"an async write of {size} bytes at {hex(lo)} (memory the graph uses) on stream "
                             f"{hex(s)} at {_at(where)}, while the graph's launch on stream {hex(x['last'][0])} at "
                             f"{_at(x['last_where'])} is not ordered before it")

    def _kernel(self, name: str, args: tuple) -> None:
        if name == "cuLaunchKernel":
            f, s, params = args[0], _int(args[8]), args[9] if len(args) > 9 else None
        else:
            config, f, params = args[0], args[1], args[2] if len(args) > 2 else None
            s = _int(getattr(config, "hStream", 0))
        cap = self.capturing.get(s)
        if cap is None:
            self.order.enqueue(s)
            return
        for lo, hi in _pointer_ranges(f, params):
            cap["ranges"].append((lo, hi))
            cap["allocs"].append((lo, hi, self.allocs.generation(lo)))

    def _update(self, args: tuple, result, code: int, frame) -> None:
        exe = _int(args[0])
        x = self._exec(exe, frame)
        where = _user_site(frame)
        info = result[1] if isinstance(result, tuple) and len(result) > 1 else None
        name = "CU_GRAPH_EXEC_UPDATE_SUCCESS" if code == 0 else ""
        node = ""
        if code != 0:
            r = getattr(info, "result", None)
            name = getattr(r, "name", "") or (str(r) if r is not None else "")
            if not name:
                name = _result_from_driver(exe, _int(args[1]) if len(args) > 1 else 0)
            try:
                node = hex(_int(getattr(info, "errorNode", 0))) if info is not None and _int(info.errorNode) else ""
            except AttributeError:
                node = ""
        from ..update import UPDATE_REASONS

        reason = "" if code == 0 else UPDATE_REASONS.get(name, "the driver refused the update")
        file, line, fn = x["site"]
        self.sink(StackEvent("update", "cugraphlab", file, line, fn, call=hex(exe), code=name, ok=code == 0,
                             text=reason, seconds=self.last_ns / 1e9, source=_at(where)))
        if code != 0 and "update" not in x["flagged"]:
            x["flagged"].add("update")
            self._hazard(x, "update_refused", where,
                         f"cuGraphExecUpdate at {_at(where)} refused: {name}" + (f" at node {node}" if node else "")
                         + f" ({reason}); the executable keeps its old parameters", code=name)

    def _hazard(self, x: dict, kind: str, where, text: str, code: str = "") -> None:
        file, line, fn = x["site"]
        self.sink(StackEvent("hazard", "cugraphlab", file, line, fn, call=kind, text=text, code=code,
                             source=_at(where)))

    @_quiet()
    def flush(self) -> None:
        """One "replay" event per executable launched (its launches), at the end of the run."""
        with self.lock:
            done, self.execs = self.execs, {}
        for exe, x in done.items():
            if x["launches"]:
                file, line, fn = x["site"]
                used, reserved = x.get("mem") or (0, 0)
                self.sink(StackEvent("replay", "cugraphlab", file, line, fn, call=hex(exe), count=x["launches"],
                                     seconds=x.get("launch_ns", 0) / 1e9, mem=used, mem_reserved=reserved))


_ACTIVE: LaunchWatch | None = None  # the watch installed now (one run_explained at a time)


@_quiet()
def capture_ended(stream, result) -> None:
    """A capture ended without the door (the capture doctor calls cuStreamEndCapture directly): tell the watch."""
    w = _ACTIVE
    if w is not None:
        with w.lock:
            w._end_capture(_int(stream), result)


def _new_exec(site, graph: dict | None) -> dict:
    """What the watch keeps of an executable: its capture site, the memory its graph touches (``ranges``; of that,
    the allocations its kernels' pointers lie in with their generation, ``allocs``), its last launch (stream,
    number) and where, its launch count and host ns, the hazards already reported (``flagged``)."""
    return {"site": site, "ranges": list(graph["ranges"]) if graph else [],
            "allocs": list(graph["allocs"]) if graph else [], "last": None, "last_where": None, "launches": 0,
            "launch_ns": 0, "flagged": set()}


def _at(where) -> str:
    if not where or not where[0]:
        return "?"
    return f"{where[0]}:{where[1]}"


def _overlaps(ranges, lo: int, hi: int) -> bool:
    return any(a < hi and lo < b for a, b in ranges)


def _pointer_ranges(f, params) -> list[tuple[int, int]]:
    """The device allocations a kernel's 8-byte arguments point into: cuFuncGetParamInfo for each argument's offset
    and size, the value read from the kernelParams array, cuMemGetAddressRange for the allocation around it.
    Empty where the driver lacks either call or the parameters are not an address (the extra form)."""
    from ...core._calls import driver_module

    addr = _int(params)
    if not addr:
        return []
    d = driver_module()
    get_info = getattr(d, "cuFuncGetParamInfo", None)
    if get_info is None:
        return []
    out = []
    try:
        slots = ctypes.cast(addr, ctypes.POINTER(ctypes.c_void_p))
        for i in range(256):
            r = get_info(f, i)
            if _int(r[0]) != 0:
                break
            if _int(r[2]) != 8 or not slots[i]:
                continue
            value = ctypes.c_uint64.from_address(slots[i]).value
            rng = d.cuMemGetAddressRange(value)
            if _int(rng[0]) == 0 and _int(rng[2]):
                out.append((_int(rng[1]), _int(rng[1]) + _int(rng[2])))
    except Exception:
        return out
    return out


def graph_memory() -> tuple[int, int]:
    """The current device's graph memory, (in use, reserved) bytes: cuDeviceGetGraphMemAttribute with
    CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT and _RESERVED_MEM_CURRENT (CUDA Driver API, "Graph Management"); process-wide,
    every live graph's allocations together. (0, 0) where the driver cannot say."""
    from ...core._calls import driver_module

    try:
        d = driver_module()
        r = d.cuCtxGetDevice()
        if _int(r[0]) != 0:
            return 0, 0
        attr = d.CUgraphMem_attribute
        used = d.cuDeviceGetGraphMemAttribute(r[1], attr.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)
        reserved = d.cuDeviceGetGraphMemAttribute(r[1], attr.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT)
        if _int(used[0]) != 0 or _int(reserved[0]) != 0:
            return 0, 0
        return _int(used[1]), _int(reserved[1])
    except Exception:
        return 0, 0


def _result_from_driver(exe: int, graph: int) -> str:
    """The CUgraphExecUpdateResult the bindings dropped (they return None on failure): asked again through ctypes
    (graphs.update; the update fails the same way and changes nothing)."""
    try:
        from ..update import _result_info_from_driver

        asked = _result_info_from_driver(exe, graph) if graph else None
    except Exception:
        asked = None
    return asked[0] if asked else "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"
