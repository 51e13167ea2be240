"""What the capture doctor reports: the classes of mistake (MISTAKES), a finding, a capture's diagnosis.

Shared by the doctor of cugraphlab's own captures (graphs.doctor) and of the stacks' captures
(graphs.doctor.stacks), which import it and not each other.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["CAPTURE_ERRORS", "MISTAKES", "Mistake", "Finding", "Diagnosis"]

#: The results that mean "this call and the capture do not mix".
CAPTURE_ERRORS = frozenset({
    "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
    "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
    "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "CUDA_ERROR_STREAM_CAPTURE_MERGE", "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
    "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "CUDA_ERROR_CAPTURED_EVENT", "CUDA_ERROR_NOT_PERMITTED",
})
_INVALIDATED = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"


@dataclass(frozen=True)
class Mistake:
    """A class of capture mistake: a short title, what happened and why (one paragraph), and the fix."""

    key: str
    title: str
    why: str
    fix: str


MISTAKES: dict[str, Mistake] = {m.key: m for m in (
    Mistake("sync", "a synchronizing call inside the capture",
            "Nothing runs while a stream captures: the work is recorded, not executed. A call that waits for work to "
            "finish (cuStreamSynchronize, cuCtxSynchronize, cuEventSynchronize) would wait "
            "for work that will never run, so the driver refuses it and invalidates the capture; every later call "
            "on the stream answers CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and cuStreamEndCapture returns no graph.",
            "Move the wait out of the capture: synchronize before cuStreamBeginCapture or after the graph has been "
            "launched (sync the replay, not the recording). To order work between streams inside a capture, record "
            "an event and cuStreamWaitEvent on it instead of waiting on the host. Values the host needs (a loss, a "
            "count) must be read after a replay, or kept on the device (a conditional node decides on the device)."),
    Mistake("legacy_stream", "a legacy-stream dependency",
            "Work on the legacy NULL stream (stream 0) waits for every blocking stream in the context and makes "
            "them wait for it. If a blocking stream (created without CU_STREAM_NON_BLOCKING) is capturing, that "
            "implicit dependency would tie eager work to work that is only being recorded: the driver refuses it "
            "with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT and invalidates the capture. Libraries that launch on "
            "\"the current stream\" fall into it when nobody set one.",
            "Launch on the capturing stream (or on a stream forked into the capture), never on stream 0 while "
            "capturing; create the capturing stream with CU_STREAM_NON_BLOCKING (cugraphlab's default) so that "
            "stray legacy work elsewhere cannot join it; in a framework, set the capture stream as the current one."),
    Mistake("host_copy", "a pageable or host-synchronous copy",
            "cuMemcpyHtoD and cuMemcpyDtoH (no Async) run on the legacy stream and return only when the copy is "
            "done: a host wait, which a capture cannot record. An async copy from pageable (not page-locked) host "
            "memory is staged through the driver's buffers synchronously, with the same effect. Where the legacy "
            "stream touches the capture, the driver refuses it (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED or _IMPLICIT) "
            "and the capture is invalidated. Measured on an H200 with driver 580 (CUDA 13.0): with a non-blocking "
            "capturing stream, a synchronous cuMemcpyHtoD from pageable memory was ACCEPTED in all three modes: it "
            "ran at once and is not in the graph, so a replay does not copy. The doctor names that call too, "
            "though the capture succeeded.",
            "Copy before or after the capture, or capture cuMemcpyHtoDAsync/DtoHAsync on the capturing stream from "
            "page-locked memory (cuMemAllocHost / cuMemHostRegister) that stays alive and in place for every "
            "replay: a replay copies from the same address each time."),
    Mistake("allocation", "an allocation inside the capture",
            "cuMemAlloc and cuMemFree are not stream operations and may synchronize the device, so in GLOBAL and "
            "THREAD_LOCAL mode they count as potentially unsafe while a capture runs: the driver refuses them "
            "(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) and the capture is invalidated. In RELAXED mode the "
            "allocation happens once, now, and is not part of the graph.",
            "Allocate every buffer before the capture and reuse it in each replay (a static pool), or use stream-"
            "ordered allocation (cuMemAllocAsync / cuMemFreeAsync on the capturing stream), which is captured as "
            "memory alloc/free nodes owned by the graph."),
    Mistake("query_or_thread", "an event query, or a call from another thread, in a strict mode",
            "In GLOBAL mode a capture forbids potentially unsafe calls (queries such as cuEventQuery or "
            "cuStreamQuery, allocations, synchronous copies) in EVERY thread of the process, and in THREAD_LOCAL "
            "mode in the capturing thread: a watchdog or logging thread that polls an event, or a data loader that "
            "allocates, fails, and its failure invalidates the capture that was running somewhere else.",
            "Capture in THREAD_LOCAL mode when other threads keep working (cugraphlab's default; PyTorch's default "
            "is GLOBAL), keep queries out of the capturing thread's capture body, or, for a call you know to be "
            "safe, switch the calling thread to RELAXED around it (cuThreadExchangeStreamCaptureMode)."),
    Mistake("unjoined", "work forked and never joined",
            "A stream that waited on an event of the capturing stream became part of the capture (a fork). Its "
            "last captured work must flow back into the origin stream (an event recorded on it, waited on by the "
            "origin) before the capture ends; otherwise cuStreamEndCapture fails with "
            "CUDA_ERROR_STREAM_CAPTURE_UNJOINED, because the graph would end while that branch still ran.",
            "Before the capture ends, record an event on every forked stream after its last work and make the "
            "origin wait on it (graphs.capture.join(origin, other, event)); the doctor names the stream and the "
            "node left dangling."),
    Mistake("isolation", "an isolation violation across captures",
            "Two captures are separate graphs. Waiting, in one capture, on an event recorded in another capture "
            "would merge them (CUDA_ERROR_STREAM_CAPTURE_MERGE); waiting on captured work from outside any capture, "
            "or making a dependency that crosses a capture's boundary, is refused with "
            "CUDA_ERROR_STREAM_CAPTURE_ISOLATION or CUDA_ERROR_CAPTURED_EVENT. The capture is invalidated.",
            "Keep events inside the capture they were recorded in: fork and join only between streams of the same "
            "capture. To order two graphs, launch them on one stream, or record/wait events between their replays, "
            "not between their captures (or add event record/wait nodes to the graphs)."),
    Mistake("wrong_thread", "the capture ended on another thread",
            "A capture begun in GLOBAL or THREAD_LOCAL mode belongs to the thread that began it; ending it from "
            "another thread fails with CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD.",
            "End the capture on the thread that began it, or begin it in RELAXED mode."),
    Mistake("foreign", "a call the doctor could not see",
            "The capture's state changed between two calls made through cugraphlab, so a call made in between, "
            "outside cugraphlab's driver door (CuPy, PyTorch, a raw cuda.bindings call, or a Launch prepared "
            "before the capture was begun), broke it. The frames of the two calls around it bound where it is.",
            "Look between the two lines named for a synchronizing call, an allocation, a host copy or work on "
            "another stream; run that code with cugraphlab's calls (or make the Launch objects inside the "
            "explained capture) to have the doctor name the call itself."),
    Mistake("lazy_init", "a library's lazy first use inside the capture",
            "Libraries create what they need on first use: a cuBLAS/cuDNN handle and its workspace, a compiled and "
            "loaded kernel module (Triton, CuPy, NVRTC), an autotuner's benchmark runs, a memory pool or memory "
            "resource. That first use allocates, loads a module, queries or synchronizes: calls a strict capture "
            "refuses (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED), and that a relaxed one runs once, now, outside the "
            "graph.",
            "Warm up before the capture: run the captured step once (PyTorch: a few iterations on a side stream, "
            "then torch.cuda.current_stream().wait_stream(side)) so that every handle, workspace, module and pool "
            "exists when the capture begins."),
    Mistake("open_capture", "a capture left open by an exception",
            "An exception left the code between begin and end capture without ending it: the stream is still "
            "capturing, so every later call on it is recorded (not run) and every potentially unsafe call of the "
            "thread (or the process, in GLOBAL mode) is refused, far from the line that really failed.",
            "End the capture whatever happens: use the stack's context manager (torch.cuda.graph, cugraphlab "
            "capture) or call the end (capture_end, end_capture, end_building, cuStreamEndCapture) in a finally "
            "block, and drop the invalid graph it returns."),
    Mistake("host_callback", "a host callback that calls CUDA",
            "A host function (cuLaunchHostFunc, a host node) runs on a driver thread while the stream waits for "
            "it; it must not call CUDA. A call made there returns CUDA_ERROR_NOT_PERMITTED, or deadlocks when it "
            "waits for the stream that waits for the callback.",
            "Keep the callback pure host code (set a flag, copy from pinned memory that a captured async copy "
            "filled); make the CUDA calls on the host thread after the replay, or as nodes of the graph."),
    Mistake("rng", "a random generator not registered with the graph",
            "A captured random kernel reads its seed and offset once, at capture: a replay would draw the same "
            "numbers every time. PyTorch refuses a CUDA generator other than the default one unless it was "
            "registered with the graph, which then advances its offset at each replay.",
            "Register the generator before the capture (g.register_generator_state(gen) in PyTorch), or use the "
            "default generator; in other stacks, keep the seed/offset in device memory that a captured kernel "
            "advances."),
    Mistake("multi_device", "work on another device during the capture",
            "A capture belongs to one stream on one device. Work, allocations or library handles created on "
            "another device (often the current device, cuda:0, when the model lives on cuda:1) are not part of it "
            "and their synchronizing or allocating calls are refused while the capture runs.",
            "Make the capture's device the current one for the whole capture (torch.cuda.set_device / "
            "with torch.cuda.device(dev)) and create the side stream and warm up on that device."),
    Mistake("stale_input", "a replay reads a tensor freed after the capture",
            "A graph replays the kernels of its capture with the same arguments: the same addresses. A tensor the "
            "capture read or wrote that was freed afterwards (its name bound to a new tensor, say) leaves the graph "
            "pointing at memory the caching allocator may hand to another tensor: the replay reads stale or foreign "
            "data, and nothing fails.",
            "Allocate the graph's inputs and outputs once (static tensors), keep them alive as long as the graph, "
            "and fill them in place before each replay (static_x.copy_(x))."),
    Mistake("concurrent_launch", "a graph launched on two streams with nothing ordering the launches",
            "An executable graph has one copy of its parameters and writes the same outputs at every launch. The "
            "driver orders two launches of one executable behind each other (cuGraphLaunch), but nothing orders "
            "the work around them: what the first stream does after its launch (reading the outputs, writing the "
            "next inputs) runs while the second launch, on another stream, overwrites the same memory. Nothing "
            "fails; the results are whichever write came last.",
            "Launch one executable on one stream; or make the second stream wait for the first (record an event on "
            "the first stream after its work, cuStreamWaitEvent on the second); or, to run the graph twice at "
            "once, instantiate it twice, each executable with its own buffers."),
    Mistake("input_race", "a graph's memory written on another stream, unordered with its launch",
            "A replay reads and writes the addresses of its capture. An async copy or memset into that memory "
            "queued on another stream, with no event or synchronization between it and the launch, may run "
            "before, during or after the graph: the replay reads half-old inputs, or the copy overwrites what the "
            "graph is using. Nothing fails.",
            "Order the two: record an event on the copy stream after the copy and make the launch stream wait for "
            "it (cuStreamWaitEvent) before the launch, and the other way round before the next copy; or copy on "
            "the launch stream itself."),
    Mistake("update_refused", "an exec update the driver refused",
            "cuGraphExecUpdate pairs the nodes of the new graph with the executable's and copies the new "
            "parameters over; when the topology, a node's type or a kernel's function changed, the driver "
            "refuses (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) and says why in CUgraphExecUpdateResultInfo. The "
            "executable keeps its old parameters: a caller that goes on launching it runs the old work, and one "
            "that re-instantiates pays for the update and the instantiation.",
            "Keep the topology of the captures the same (the same kernels in the same order, every branch "
            "captured, fixed shapes), so that updates are accepted; where it must change, capture and "
            "instantiate once per shape and keep each executable (an ExecCache keyed by shape)."),
    Mistake("other", "a call refused during capture",
            "The driver refused this call while the stream was capturing.",
            "Move the call out of the capture, or read the driver's text for the code named."),
)}

# --- what the doctor reports ----------------------------------------------------------------------------------------
@dataclass
class Finding:
    """One mistake: the call (``"?"`` for one the doctor could not see), its arguments, its result, the Python
    frame, the class of mistake (a MISTAKES key) and how the capture's state changed."""

    kind: str
    call: str
    args: str = ""
    result: str = ""
    where: str = ""
    thread: str = ""
    stream: str = ""
    status_change: str = ""
    detail: str = ""
    seen: bool = True
    fix_hint: str = ""  # the fix in the stack's own terms (graphs.doctor.stacks); the class's general fix if empty

    @property
    def mistake(self) -> Mistake:
        return MISTAKES[self.kind]

    def line(self) -> str:
        call = f"{self.call}({self.args})" if self.seen else "a call outside cugraphlab"
        res = f" -> {self.result}" if self.result else ""
        return f"{self.mistake.title}: {call}{res} at {self.where or '?'}"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(title=self.mistake.title, why=self.mistake.why, fix=self.fix_hint or self.mistake.fix)
        return d


@dataclass
class Diagnosis:
    """What the doctor found in one capture. ``findings[0]`` is the first call that broke it (if any); unjoined
    forks follow. ``ok``: cuStreamEndCapture returned a graph. ``open_dependencies``: before the end, each stream
    in the capture and the nodes (labels) its next work would depend on. ``later``: refused calls after the first."""

    stream: str
    mode: str
    ok: bool = True
    end_result: str = "CUDA_SUCCESS"
    findings: list[Finding] = field(default_factory=list)
    open_dependencies: dict = field(default_factory=dict)
    later: list[str] = field(default_factory=list)
    calls_seen: int = 0
    where: str = ""
    cupti: dict = field(default_factory=dict)  # the CUPTI mode's log summary (graphs.doctor.cupti), {} without it
    stack: str = ""  # a capture PyTorch, CuPy or cuda.core made (graphs.doctor.stacks), "" for cugraphlab's own

    @property
    def first(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def summary(self) -> str:
        head = (f"capture on {self.stream} ({self.mode}) ended {self.end_result}; {self.calls_seen} driver calls "
                f"seen, {len(self.findings)} finding(s)")
        return "\n".join([head] + [f"  [{i + 1}] {f.line()}" for i, f in enumerate(self.findings)])

    def to_dict(self) -> dict:
        d = asdict(self)
        d["findings"] = [f.to_dict() for f in self.findings]
        return d
