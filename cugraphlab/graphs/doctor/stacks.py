"""The capture doctor for captures the stacks make themselves: PyTorch, CuPy, cuda.core, Triton, numba-cuda.

cugraphlab's door (``core._calls``) sees only cugraphlab's own driver calls, and ``torch.cuda.graph`` never goes
through it. What every stack does give is a Python exception at the line that broke the capture, with the driver's
text in it ("CUDA error: operation not permitted when stream is capturing", ``cudaErrorStreamCaptureUnsupported``,
``CUDA_ERROR_STREAM_CAPTURE_IMPLICIT``). Under ``cugraphlab doctor`` the stack watch (graphs.doctor.watch) records, in order::

    begin   torch.cuda.CUDAGraph.capture_begin / cupy.cuda.Stream.begin_capture /
            cuda.core GraphBuilder.begin_building           (patched while the script runs, from its import on)
    raise   every exception raised in a frame of the user's files while a capture is open (a trace function,
            armed only between begin and end), one raised in another thread (threading.excepthook), and the
            script's own (its __context__ chain, innermost first)
    call    a driver call made through cugraphlab from inside a host callback (HostCallback.python)
    end     capture_end / end_capture / end_building: its result
    replay  CUDAGraph.replay, and every capture site's count (the replay watch, ``cugraphlab doctor --replay``)

``explain_events`` (no GPU, no stack needed: tests feed it recorded events) turns them into the doctor's
Diagnosis: the FIRST event that broke a capture (a capture error, a raise in another thread, an exception that
left the capture open, a CUDA call in a host callback), the line of the user's file, the call on that line (read
from the source with ``ast``), the class of mistake (graphs.doctor.MISTAKES) and the fix in the stack's own terms
(``STACK_CALLS``). A capture the script left open is ended by the doctor at the end of the run (the stream is not
left capturing while the interpreter tears down).
"""
from __future__ import annotations

import ast
import linecache
import re
from dataclasses import asdict, dataclass

from .findings import CAPTURE_ERRORS, Diagnosis, Finding
from .sites import site_stats  # re-exported: the replay watch's table (graphs.doctor.sites)

__all__ = ["STACK_CALLS", "StackEvent", "calls_on_line", "classify_line", "code_of", "explain_events", "site_stats"]

_INVALIDATED = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"


# --- what the driver's text says ------------------------------------------------------------------------------------
# cuGetErrorString's texts (the runtime prints the same), most specific first.
_TEXTS = (
    ("operation not permitted when stream is capturing", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
    ("operation failed due to a previous error during capture", _INVALIDATED),
    ("legacy stream depend on a capturing blocking stream", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"),
    ("event last recorded in a capturing stream", "CUDA_ERROR_CAPTURED_EVENT"),
    ("merge of two independent capture sequences", "CUDA_ERROR_STREAM_CAPTURE_MERGE"),
    ("merge of separate capture sequences", "CUDA_ERROR_STREAM_CAPTURE_MERGE"),
    ("unjoined", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"),
    ("uncaptured work in another stream", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"),
    ("thread-local capture sequence from another thread", "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"),
    ("capture sequence was not initiated in this stream", "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"),
    ("cudaStreamCaptureStatusInvalidated", _INVALIDATED),
    ("captures_underway", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
    ("operation not permitted", "CUDA_ERROR_NOT_PERMITTED"),
)
# Texts of the stacks' own refusals that carry no CUDA code, and the class each one means.
TEXT_KINDS = (
    ("generator not in capture mode", "rng"),
    ("autotun", "lazy_init"),
    ("CUBLAS_STATUS", "lazy_init"),
    ("cublasCreate", "lazy_init"),
    ("CUDNN_STATUS", "lazy_init"),
    ("register_generator_state", "rng"),
    ("must be captured on a non-default stream", "legacy_stream"),
)
# Texts of a stack refusing a call itself, before any CUDA call, because its stream captures (CuPy's
# MemoryPointer.copy_to_host_async: "the current stream is capturing, so D2H transfers are disallowed"): the call on
# the line is the mistake (its class read from the line), the capture it leaves open only its consequence.
# PyTorch's: "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is pinned".
STACK_REFUSALS = ("stream is capturing, so", "transfers are disallowed", "during cuda graph capture")
_NAME = re.compile(r"\b(CUDA_ERROR_[A-Z_]+|cudaError[A-Z][A-Za-z]+)\b")
_CAPTURE_WORDS = ("capture", "graph")


def _snake(runtime_name: str) -> str:
    """cudaErrorStreamCaptureUnsupported -> CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED."""
    rest = runtime_name[len("cudaError"):]
    return "CUDA_ERROR_" + re.sub(r"(?<!^)(?=[A-Z])", "_", rest).upper()


def code_of(text: str, exc: BaseException | None = None) -> str:
    """The CUresult name an exception's text (or its ``.name``, cugraphlab's CudaError) carries; "" if none."""
    name = getattr(exc, "name", "") if exc is not None else ""
    if isinstance(name, str) and name.startswith("CUDA_ERROR_"):
        return name
    m = _NAME.search(text or "")
    if m:
        return m.group(1) if m.group(1).startswith("CUDA_ERROR_") else _snake(m.group(1))
    low = (text or "").lower()
    for needle, code in _TEXTS:
        if needle.lower() in low:
            return code
    return ""


def _is_capture_code(code: str) -> bool:
    return code in CAPTURE_ERRORS


# --- the calls on a line, and what each one means in its stack --------------------------------------------------------
def calls_on_line(source: str) -> list[str]:
    """The calls a line of Python makes, as dotted names, innermost first (the order Python runs them):
    ``print(x.masked_select(m).sum().item())`` -> ["x.masked_select", "x.masked_select().sum", ...]. Never raises."""
    text = source.strip()
    for candidate in (text, text.rstrip(":"), text.rstrip(":") + " pass" if text.endswith(":") else None,
                      text[len("with "):].split(" as ")[0] if text.startswith("with ") else None):
        if not candidate:
            continue
        try:
            tree = ast.parse(candidate if not candidate.endswith(" pass") else candidate.replace(" pass", ":\n pass"))
        except SyntaxError:
            continue
        out: list[str] = []

        def name_of(node) -> str:
            if isinstance(node, ast.Name):
                return node.id
            if isinstance(node, ast.Attribute):
                return f"{name_of(node.value)}.{node.attr}"
            if isinstance(node, ast.Call):
                return name_of(node.func) + "()"
            if isinstance(node, ast.Subscript):
                return name_of(node.value) + "[]"
            return "?"

        class Visit(ast.NodeVisitor):
            def visit_Call(self, node):
                self.generic_visit(node)  # arguments and the receiver run first
                name = name_of(node.func)
                if (name == "cu" or name.endswith(".cu")) and node.args and isinstance(node.args[0], ast.Constant) \
                        and isinstance(node.args[0].value, str):
                    name = node.args[0].value  # cugraphlab's door: cu("cuMemAlloc", ...) is the driver call
                out.append(name)

        Visit().visit(tree)
        return out
    return []


def _attributes(source: str) -> list[str]:
    try:
        tree = ast.parse(source.strip().rstrip(":"))
    except SyntaxError:
        return []
    return [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]


@dataclass(frozen=True)
class StackCall:
    """A call that breaks captures in one stack: the last part(s) of its name, the class, the fix in its terms."""

    stack: str
    name: str
    kind: str
    fix: str


_T = "PyTorch"
STACK_CALLS: tuple[StackCall, ...] = (
    # PyTorch
    StackCall("torch", "item", "sync", "Keep the value on the device: return the tensor from the captured step and "
              "call .item() after g.replay() (and torch.cuda.current_stream().synchronize()), or let a device-side "
              "test decide (torch.where)."),
    StackCall("torch", "tolist", "sync", "Read the values after g.replay(), not inside the capture."),
    StackCall("torch", "cpu", "sync", "Copy into a pinned host tensor with .copy_(..., non_blocking=True) inside "
              "the capture, and read it after the replay has been synchronized."),
    StackCall("torch", "numpy", "sync", "Convert after g.replay() and a synchronize, not inside the capture."),
    StackCall("torch", "masked_select", "sync", "masked_select's output size depends on the data, so PyTorch waits "
              "for the GPU to count: use a fixed-shape form inside the capture (torch.where(mask, x, 0), or "
              "x * mask) and compact after the replay."),
    StackCall("torch", "nonzero", "sync", "nonzero's output size depends on the data: use a fixed-size form "
              "(torch.nonzero_static, torch.where with a fill value) inside the capture."),
    StackCall("torch", "unique", "sync", "unique's output size depends on the data: compute it after the replay."),
    StackCall("torch", "cuda.synchronize", "sync", "Synchronize after g.replay(), never between capture_begin and "
              "capture_end (the with torch.cuda.graph block)."),
    StackCall("torch", "synchronize", "sync", "Synchronize after g.replay(); to order streams inside the capture "
              "use stream.wait_stream(other) or event.record() / stream.wait_event(event)."),
    StackCall("torch", "query", "query_or_thread", "Capture with torch.cuda.graph(g, capture_error_mode="
              "'thread_local') so that other threads may query and allocate, or keep the query out of the capture."),
    StackCall("torch", "empty_cache", "allocation", "Call torch.cuda.empty_cache() before or after the capture."),
    StackCall("torch", "pin_memory", "allocation", "Pin host buffers before the capture; a thread that pins "
              "memory while another captures needs capture_error_mode='thread_local'."),
    StackCall("torch", "Generator", "rng", "Create the generator before the capture and register it: "
              "g.register_generator_state(gen)."),
    StackCall("torch", "manual_seed", "rng", "Seed before the capture; a registered generator advances its offset "
              "at each replay."),
    StackCall("torch", "set_device", "multi_device", "Set the device before the capture and keep it for the "
              "whole capture (with torch.cuda.device(dev))."),
    StackCall("torch", "capture_begin", "open_capture", "Use with torch.cuda.graph(g): ... (its exit ends the "
              "capture also on an exception), or call g.capture_end() in a finally block."),
    StackCall("torch", "matmul", "lazy_init", "Warm up before the capture: run the step a few times on a side "
              "stream (cuBLAS creates its handle and workspace per stream on first use), then capture."),
    StackCall("torch", "mm", "lazy_init", "Warm up before the capture on a side stream (cuBLAS workspace)."),
    StackCall("torch", "linear", "lazy_init", "Warm up before the capture on a side stream (cuBLAS workspace)."),
    # CuPy
    StackCall("cupy", "get", "sync", "ndarray.get() copies to the host and waits: launch the graph, synchronize "
              "the stream, then .get(); inside the capture keep the result on the device."),
    StackCall("cupy", "asnumpy", "sync", "cupy.asnumpy waits for the copy: call it after graph.launch(stream) and "
              "stream.synchronize()."),
    StackCall("cupy", "synchronize", "sync", "Synchronize after graph.launch(), not between begin_capture and "
              "end_capture; order streams inside the capture with Event.record / Stream.wait_event."),
    StackCall("cupy", "query", "query_or_thread", "Query the event after the capture (an event recorded in a "
              "capture is not a real event until the graph runs)."),
    StackCall("cupy", "done", "query_or_thread", "Ask .done after the capture, not of a stream or event being "
              "captured."),
    StackCall("cupy", "empty", "allocation", "Allocate every array before begin_capture and reuse it, or use "
              "cupy.cuda.MemoryAsyncPool (stream-ordered, captured as memory nodes), or capture in relaxed mode."),
    StackCall("cupy", "zeros", "allocation", "Allocate before begin_capture (the memory pool grows with cudaMalloc, "
              "which a strict capture refuses), or use cupy.cuda.MemoryAsyncPool."),
    StackCall("cupy", "ones", "allocation", "Allocate before begin_capture, or use cupy.cuda.MemoryAsyncPool."),
    StackCall("cupy", "launch_host_func", "host_callback", "Keep the host function free of CUDA calls."),
    # cuda.core
    StackCall("cuda.core", "sync", "sync", "Synchronize after graph.launch(stream); inside the builder, order "
              "work with events, not host waits."),
    StackCall("cuda.core", "allocate", "allocation", "Create the memory resource before begin_building (touch "
              "dev.memory_resource once, or allocate once outside the capture), or capture in relaxed mode, or "
              "allocate inside the capture from a GraphMemoryResource."),
    StackCall("cuda.core", "memory_resource", "allocation", "Touch dev.memory_resource before begin_building: its "
              "lazy creation sets the pool's attributes, which a strict capture refuses."),
    StackCall("cuda.core", "DeviceMemoryResource", "allocation", "Create the DeviceMemoryResource before "
              "begin_building."),
    StackCall("cuda.core", "is_done", "query_or_thread", "Ask is_done after the capture."),
    # numba-cuda
    StackCall("numba", "copy_to_host", "sync", "Copy to the host after the replay (numba's copy_to_host waits), or "
              "copy_to_host(ary, stream=s) into pinned memory inside the capture and read it after."),
    StackCall("numba", "to_device", "host_copy", "Copy to the device before the capture, or pass stream=s."),
    StackCall("numba", "synchronize", "sync", "Synchronize after the replay."),
    # Triton
    StackCall("triton", "[]", "lazy_init", "Call the Triton kernel once before the capture (it compiles, loads its "
              "module and, with @triton.autotune, benchmarks every config on first call), then capture."),
    # cugraphlab
    StackCall("cugraphlab", "synchronize", "sync", "Synchronize after exe.launch(stream), not inside the capture; "
              "in a conditional body decide on the device (a kernel sets the handle)."),
    StackCall("cugraphlab", "to_host", "sync", "Copy to the host after the replay."),
)


def _stack_of_name(dotted: str) -> str:
    head = dotted.split(".", 1)[0]
    return {"torch": "torch", "cupy": "cupy", "cp": "cupy", "cupyx": "cupy", "triton": "triton", "tl": "triton",
            "numba": "numba", "cuda": "numba", "cgl": "cugraphlab", "cugraphlab": "cugraphlab"}.get(head, "")


def _matches(call: str, name: str) -> bool:
    bare = call.replace("()", "").replace("[]", "") if name != "[]" else call
    return bare == name or bare.endswith("." + name) or (name == "[]" and call.endswith("[]"))


def classify_line(source: str, code: str, stack: str, text: str = "") -> tuple[str, str, str]:
    """(the call, class, fix in the stack's terms) for the line ``source`` that broke a capture with ``code``.
    The first call on the line (in the order Python runs them) that ``STACK_CALLS`` knows decides, the stack's own
    entries first; then the result code alone; ("?" call) when the line calls nothing known."""
    calls = calls_on_line(source)
    for needle, kind in TEXT_KINDS:
        if needle.lower() in (text or "").lower():
            return (calls[-1] if calls else "?"), kind, next((c.fix for c in STACK_CALLS if c.kind == kind
                                                               and c.stack == stack), "")
    ranked = [c for c in STACK_CALLS if c.stack == stack] + [c for c in STACK_CALLS if c.stack != stack]
    for call in calls:
        for entry in ranked:
            if _matches(call, entry.name):
                if entry.stack != stack and _stack_of_name(call) not in ("", entry.stack):
                    continue
                return call, entry.kind, entry.fix
    for call in calls:  # a raw driver call (cugraphlab's cu("cu..."), cuda.bindings' driver.cuXxx)
        bare = call.rsplit(".", 1)[-1].replace("()", "")
        if bare.startswith("cu") and bare[2:3].isupper():
            from .calls import classify

            kind = classify(bare, (), code)
            if kind != "other":
                return bare, kind, ""
    for attr in _attributes(source):  # a property that queries: CuPy's Event.done, cuda.core's is_done
        for entry in ranked:
            if entry.name == attr and entry.kind == "query_or_thread":
                return attr, entry.kind, entry.fix
    by_code = {"CUDA_ERROR_STREAM_CAPTURE_IMPLICIT": "legacy_stream", "CUDA_ERROR_CAPTURED_EVENT": "isolation",
               "CUDA_ERROR_STREAM_CAPTURE_ISOLATION": "isolation", "CUDA_ERROR_STREAM_CAPTURE_MERGE": "isolation",
               "CUDA_ERROR_STREAM_CAPTURE_UNJOINED": "unjoined",
               "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD": "wrong_thread"}
    return (calls[-1] if calls else "?"), by_code.get(code, "other"), ""


_CODE_FIXES = {
    "legacy_stream": {
        "torch": "Make the capturing stream the current one for every library (torch.cuda.ExternalStream(s.ptr) "
                 "with torch.cuda.stream(...)), or capture on a non-blocking stream "
                 "(cupy.cuda.Stream(non_blocking=True)) so that legacy-stream work elsewhere cannot touch it.",
        "numba": "Pass the capturing stream to the launch (kernel[grid, block, cuda.external_stream(s.ptr)]), or "
                 "capture on a non-blocking stream.",
    },
}


# --- events ------------------------------------------------------------------------------------------------------------
@dataclass
class StackEvent:
    """One thing the stack watch saw (module doc). ``capture``: the number of the capture open when it happened
    (its begin event's), 0 for none; ``text``: an exception's "Type: first line"; ``code``: its CUresult name."""

    kind: str  # "begin" | "end" | "raise" | "call" | "replay" | "stale"; the replay watch of cugraphlab's own graphs
    #            (graphs.doctor.launches): "captured" | "instantiated" | "update" | "hazard"
    stack: str = ""
    file: str = ""
    line: int = 0
    function: str = ""
    text: str = ""
    code: str = ""
    call: str = ""
    stream: str = ""
    mode: str = ""
    thread: str = ""
    capture_thread: bool = True
    capture: int = 0
    source: str = ""
    in_callback: bool = False
    ok: bool = True
    seconds: float = 0.0
    escaped: bool = False  # the exception left the script (it ended it): raised inside a capture, it broke it
    count: int = 1  # replays: how many launches of the graph this event stands for
    mem: int = 0  # bytes: a torch capture's pool growth (end); the device's graph memory in use (cugraphlab replay)
    mem_reserved: int = 0  # bytes: the device's graph memory reserved (cugraphlab replay)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}, in {self.function}" if self.file else ""

    def line_text(self) -> str:
        if self.source:
            return self.source
        return linecache.getline(self.file, self.line).strip() if self.file and self.line else ""

    def to_dict(self) -> dict:
        return asdict(self)


def _finding_for(ev: StackEvent, open_capture: bool) -> Finding:
    """The Finding for the event that broke a capture."""
    source = ev.line_text()
    if ev.kind == "call":  # a driver call from inside a host callback
        return Finding("host_callback", ev.call, result=ev.code, where=ev.where, thread=ev.thread,
                       detail=f"called from a host callback at replay: {source}" if source else
                       "called from a host callback at replay",
                       fix_hint="Keep the callback pure host code; make this call on the host thread after the "
                                "replay, or as a node of the graph.")
    call, kind, hint = classify_line(source, ev.code, ev.stack, ev.text)
    refused = not ev.code and _refused_by_stack(ev.text)
    if ev.in_callback:
        kind, hint = "host_callback", "Keep the callback pure host code; make the CUDA call after the replay."
    elif not ev.capture_thread and kind not in ("multi_device",):
        kind = "query_or_thread"
        hint = {"torch": "Capture with torch.cuda.graph(g, capture_error_mode='thread_local'): in 'global' mode "
                         "(PyTorch's default) an unsafe call in ANY thread (an allocation, an event query, "
                         "pin_memory) invalidates the capture.",
                "cupy": "Begin the capture in thread-local or relaxed mode (stream.begin_capture(mode=...)), or keep "
                        "the other thread's unsafe calls out of the capture's time.",
                "cuda.core": "Begin the capture in thread-local or relaxed mode (gb.begin_building('thread_local')"
                             "): in 'global' mode another thread's allocation is refused even from a memory resource "
                             "created before the capture; create that resource before the capture too (touch "
                             "dev.memory_resource)."}.get(ev.stack, "") or hint
    elif refused:
        if kind == "other":  # CuPy's refusal is of a D2H copy (a synchronizing call), PyTorch's of a host copy
            kind = "sync" if "d2h" in ev.text.lower() else "host_copy" if "copy" in ev.text.lower() else kind
        if open_capture:
            hint = (hint + " " if hint else "") + {
                "cupy": "Then end the capture in a finally block (stream.end_capture()): the refusal left it open.",
                "torch": "Then end the capture in a finally block: the refusal left it open.",
                "cuda.core": "Then end the capture in a finally block (builder.end_building()): the refusal left "
                             "it open."}.get(ev.stack, "Then end the capture in a finally block: the refusal left "
                                                       "it open.")
    elif open_capture and not _is_capture_code(ev.code):
        kind = "open_capture"
        hint = {"torch": "Use with torch.cuda.graph(g): ... (its exit ends the capture on an exception too), or "
                         "call g.capture_end() in a finally block.",
                "cupy": "Call stream.end_capture() in a finally block.",
                "cuda.core": "Call builder.end_building() in a finally block."}.get(ev.stack, "")
    elif ev.code in ("CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",) and kind != "legacy_stream":
        kind, hint = "legacy_stream", ""
    if kind == "legacy_stream" and not hint:
        hint = _CODE_FIXES["legacy_stream"].get(ev.stack, "") or _CODE_FIXES["legacy_stream"]["torch"]
    detail = ev.text
    if source:
        detail = (detail + "; " if detail else "") + f"line: {source}"
    if not ev.capture_thread:
        detail += f"; raised in thread {ev.thread!r}, not the capturing thread"
    if refused:
        detail += (f"; {ev.stack or 'the stack'} refused the call itself (no CUDA call was made)"
                   + ("; its exception left the capture open (the doctor ended it at exit)" if open_capture else ""))
    return Finding(kind, call, result=ev.code or ("(left open)" if kind == "open_capture" else
                                                  f"(refused by {ev.stack or 'the stack'})" if refused else ""),
                   where=ev.where, thread=ev.thread, stream=ev.stream, detail=detail, seen=True, fix_hint=hint)


def _refused_by_stack(text: str) -> bool:
    low = (text or "").lower()
    return any(n in low for n in STACK_REFUSALS)


def _breaks(ev: StackEvent, open_after: bool) -> bool:
    """Whether a raise or call event broke (or, for a host callback, misused) a capture."""
    if ev.kind == "call":
        return True
    if ev.kind != "raise":
        return False
    if ev.in_callback and ev.code:
        return True
    if ev.text.split(":", 1)[0] in _IGNORED:
        return False
    return (_is_capture_code(ev.code) or open_after or ev.escaped or _refused_by_stack(ev.text)
            or any(n.lower() in ev.text.lower() for n, _ in TEXT_KINDS))


_IGNORED = ("StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt", "SystemExit")


def _culprit(events: list[StackEvent]) -> StackEvent:
    """The first event that broke the capture: a refused call before any INVALIDATED answer (those are
    consequences; one comes first only when the refused call itself was not seen)."""
    return next((e for e in events if e.code != _INVALIDATED), events[0])


def explain_events(events: list[StackEvent]) -> list[Diagnosis]:
    """The diagnoses of the stack captures seen in ``events`` (in the order seen), one per capture, plus one per
    host callback that called CUDA, plus one for capture errors seen outside any known capture (a stack whose
    capture calls the watch could not patch). Pure: no GPU, no stack needed."""
    events = list(events)
    begins = {e.capture: e for e in events if e.kind == "begin"}
    ends = {e.capture: e for e in events if e.kind == "end"}
    out: list[Diagnosis] = []
    for cid, b in begins.items():
        stale = [e for e in events if e.capture == cid and e.kind == "stale"]
        mine = [e for e in events if e.capture == cid and e.kind in ("raise", "call")]
        for e in mine:
            e.stack = e.stack or b.stack  # a plain Python error inside the capture: the capture's stack
        end = ends.get(cid)
        open_after = end is None
        later = [e for e in mine if _breaks(e, open_after)]
        d = Diagnosis(stream=b.stream or "?", mode=b.mode or "?", where=b.where, stack=b.stack,
                      ok=end is not None and end.ok, end_result=(end.code or ("CUDA_SUCCESS" if end.ok else end.text))
                      if end is not None else "never ended (ended by the doctor at exit)")
        d.calls_seen = len(mine)
        if later and b.text.startswith("device mismatch"):
            first = _culprit(later)
            f = _finding_for(first, open_after)
            f.kind, f.fix_hint = "multi_device", next(c.fix for c in STACK_CALLS if c.kind == "multi_device")
            f.detail += f"; {b.text}"
            d.findings.append(f)
            later = []
        if later:
            first = _culprit(later)
            suspect = _suspect_between(b, first) if first.code == _INVALIDATED and first.kind == "raise" \
                and not first.in_callback else None
            if suspect is not None:
                d.findings.append(suspect)
            elif first.code == _INVALIDATED and first.kind == "raise" and not first.in_callback:
                d.findings.append(Finding(
                    "foreign", "?", result=first.code, where=first.where, seen=False, stream=first.stream,
                    detail=f"the capture was already invalidated when this line ran ({first.text}); the call "
                           "that invalidated it raised no exception the doctor saw (another thread's call, or a "
                           "library that swallowed its error)"))
            else:
                d.findings.append(_finding_for(first, open_after))
            d.later = [f"{e.where}: {e.code or e.text}" for e in later if e is not first][:8]
        elif not d.ok:
            suspect = _suspect_between(b, end) if end is not None else None
            d.findings.append(suspect or Finding(
                "foreign", "?", result=d.end_result, where=b.where, seen=False,
                detail="the capture failed, and no exception in the user's files said why"))
        for e in stale[:1]:
            d.findings.append(Finding(
                "stale_input", e.call, where=e.where, stream=d.stream, detail=e.text, seen=True,
                fix_hint="Keep every tensor the graph was captured with alive, and put new data into it in place "
                         f"({e.call}.copy_(new)) instead of binding the name to a new tensor: a replay reads the "
                         "addresses of the capture."))
        out.append(d)
    out += _hazards([e for e in events if e.kind == "hazard"])
    loose = [e for e in events if e.capture == 0 and e.kind in ("raise", "call")
             and (e.kind == "call" or _is_capture_code(e.code) or e.in_callback)]
    callbacks = [e for e in loose if e.kind == "call" or e.in_callback]
    others = [e for e in loose if e not in callbacks]
    if callbacks:
        d = Diagnosis(stream=callbacks[0].stream or "?", mode="replay", ok=True, end_result="host callback at replay",
                      stack=callbacks[0].stack or "cugraphlab")
        d.findings.append(_finding_for(callbacks[0], False))
        d.later = [f"{e.where}: {e.call or e.code}" for e in callbacks[1:8]]
        d.calls_seen = len(callbacks)
        out.append(d)
    if others:
        first = _culprit(others)
        d = Diagnosis(stream=first.stream or "?", mode="?", ok=False, end_result=first.code, stack=first.stack or "?",
                      where="(a capture the doctor did not see begin)")
        d.findings.append(_finding_for(first, False))
        d.later = [f"{e.where}: {e.code}" for e in others if e is not first][:8]
        d.calls_seen = len(others)
        out.append(d)
    return out


def _suspect_between(begin: StackEvent, failed: StackEvent) -> Finding | None:
    """A capture invalidated by a call that raised nothing (the stack swallowed the driver's answer: CuPy's
    ``Event.done``): the first line between the capture's begin and the line that failed, in the same function of
    the same file, that makes a call known to break captures (``STACK_CALLS``, a raw driver call the door's classes
    know, a querying property). None when there is no such line."""
    if not begin.file or begin.file != failed.file or begin.function != failed.function or \
            failed.line <= begin.line + 1:
        return None
    for line in range(begin.line + 1, failed.line):
        source = linecache.getline(begin.file, line).strip()
        if not source or source.startswith("#"):
            continue
        call, kind, hint = classify_line(source, "", begin.stack)
        if kind in ("other", "open_capture"):
            continue
        dotted = re.search(rf"([A-Za-z_][\w.]*\.{re.escape(call)})\b", source) if "." not in call else None
        return Finding(  # named from the source (the driver's answer was swallowed): seen, as far as it goes
            kind, dotted.group(1) if dotted else call.replace("()", ""), result="(invalidated, nothing raised)",
            where=f"{begin.file}:{line}, in {begin.function}", thread=begin.thread, stream=begin.stream,
            seen=True, fix_hint=hint,
            detail=f"the capture was invalidated by a call that raised nothing ({begin.stack or 'the stack'} swallowed "
                   f"the driver's answer), found only at line {failed.line} ({failed.line_text()}: {failed.text}); "
                   f"the first line after the capture's begin (line {begin.line}) that makes a call known to break "
                   f"captures is this one: {source}")
    return None


_HAZARD_FIXES = {  # the fix in cugraphlab's terms, where the class's own names another stack's
    "stale_input": "Keep every buffer the graph was captured with alive as long as its executable, and copy new data "
                   "into it (x.copy_from(new)) instead of binding the name to a new buffer; to use another buffer, "
                   "capture again or point the executable at it (graphs.try_exec_update).",
}


def _hazards(events: list[StackEvent]) -> list[Diagnosis]:
    """The replay watch's hazards (graphs.doctor.launches): one diagnosis per capture site, a finding per hazard."""
    out: dict[str, Diagnosis] = {}
    for e in events:
        d = out.get(e.where)
        if d is None:
            d = out[e.where] = Diagnosis(stream="?", mode="replay", ok=True, end_result="captured; hazard at replay",
                                         stack=e.stack, where=e.where)
        d.findings.append(Finding(e.call, "cuGraphExecUpdate" if e.call == "update_refused" else "cuGraphLaunch",
                                  result=e.code, where=e.where, detail=e.text, seen=True,
                                  fix_hint=_HAZARD_FIXES.get(e.call, "") if e.stack == "cugraphlab" else ""))
        d.calls_seen += 1
    return list(out.values())
