"""The capture doctor's field gallery: mistakes people made in public threads, one short script per case, in the
stack where each was reported (PyTorch, CuPy, cuda.core, Triton through PyTorch, numba-cuda, cugraphlab).

Every script runs as ``python CASE.py`` (the mistake) and ``python CASE.py --fixed`` (its fixed twin: the fix the
doctor gives, applied; it replays the graph and checks the result bit for bit where the result is deterministic).
``# doctor: here`` marks the line the doctor must name, ``# doctor: capture`` the capture's. ``CASES`` says, per
case, the thread it reproduces, its stack, the class of mistake (graphs.doctor.MISTAKES) and the call the doctor
must name, and the error text the stack raises (``text``: what the CPU tests feed the explainer, no GPU needed).
``experiment.doctor_gallery_field`` runs them, each variant in its own process with a timeout.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["CASES", "HERE", "FieldCase", "case", "marked_line"]

HERE = Path(__file__).resolve().parent
_UNSUPPORTED = "operation not permitted when stream is capturing"
_TORCH = f"torch.AcceleratorError: CUDA error: {_UNSUPPORTED}"
_CUPY = f"CUDARuntimeError: cudaErrorStreamCaptureUnsupported: {_UNSUPPORTED}"
_CORE = f"CUDAError: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: {_UNSUPPORTED}"
# What the H200 run met: CuPy refuses a D2H copy itself, before any CUDA call; Event.done swallows the driver's
# answer, and only end_capture raises
_CUPY_D2H = "RuntimeError: the current stream is capturing, so D2H transfers are disallowed"
_CUPY_INVALIDATED = ("CUDARuntimeError: cudaErrorStreamCaptureInvalidated: operation failed due to a previous error "
                     "during capture")


@dataclass(frozen=True)
class FieldCase:
    """One case: ``key`` (its script is ``key + ".py"``), the public thread, the stack, the class and call the
    doctor must name, the error text the stack raises at that call, whether the call is made by a thread other than
    the capturing one, whether the broken script leaves its capture open, the GPUs it needs."""

    key: str
    thread: str
    stack: str
    kind: str
    call: str
    text: str
    capture_thread: bool = True
    left_open: bool = False
    gpus: int = 1
    event: str = "raise"  # "call": a driver call made from a host callback (no exception); "swallowed": the
    #                       marked call raised nothing, the capture's end raised INVALIDATED

    @property
    def script(self) -> Path:
        return HERE / f"{self.key}.py"

    def line(self, marker: str = "here") -> int:
        return marked_line(self.script, marker)


def marked_line(path: Path, marker: str = "here") -> int:
    """The 1-based line of ``path`` that carries ``# doctor: MARKER``."""
    for i, text in enumerate(Path(path).read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# doctor: {marker}"):
            return i
    raise LookupError(f"{path}: no line marked '# doctor: {marker}'")


CASES: tuple[FieldCase, ...] = (
    FieldCase("torch_item", "Lightning-AI/lightning-thunder#727", "torch", "sync", "item", _TORCH),
    FieldCase("torch_masked_select", "pytorch/pytorch#92684", "torch", "sync", "masked_select", _TORCH),
    FieldCase("torch_synchronize", "pytorch/pytorch#63269", "torch", "sync", "synchronize", _TORCH),
    FieldCase("torch_cpu_copy", "csarofeen/pytorch#2098", "torch", "sync", "cpu", _TORCH),
    FieldCase("torch_thread_query", "pytorch/pytorch#137844", "torch", "query_or_thread", "query", _TORCH,
              capture_thread=False),
    FieldCase("torch_thread_alloc", "pytorch/pytorch#174724", "torch", "query_or_thread", "empty", _TORCH,
              capture_thread=False),
    FieldCase("torch_rng", "pytorch/pytorch#63269", "torch", "rng", "randn",
              "RuntimeError: Attempt to increase offset for a CUDA generator not in capture mode."),
    FieldCase("torch_open_capture", "NVIDIA/cuda-python#1235", "torch", "open_capture", "ValueError",
              "ValueError: shape mismatch: (1024,) @ (7,)", left_open=True),
    FieldCase("torch_two_gpus", "pytorch/pytorch#87794", "torch", "multi_device", "loss", _TORCH, gpus=2),
    FieldCase("torch_no_warmup", "mstar-project/mstar#55", "torch", "lazy_init", "matmul", _TORCH),
    FieldCase("torch_legacy_from_cupy", "cupy/cupy#6290", "torch", "legacy_stream", "mul_",
              "torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a capturing "
              "blocking stream", left_open=True),
    FieldCase("triton_autotune", "triton-lang/triton#10596", "triton", "lazy_init", "[]", _TORCH),
    FieldCase("cupy_get", "cupy/cupy#4567", "cupy", "sync", "get", _CUPY_D2H, left_open=True),
    FieldCase("cupy_asnumpy", "cupy/cupy#6290", "cupy", "sync", "asnumpy", _CUPY_D2H, left_open=True),
    FieldCase("cupy_stream_sync", "cupy/cupy#4567", "cupy", "sync", "synchronize", _CUPY, left_open=True),
    FieldCase("cupy_event_query", "cupy/cupy#4567", "cupy", "query_or_thread", "done", _CUPY_INVALIDATED,
              event="swallowed"),
    FieldCase("cupy_pool_grow", "cupy/cupy#6290", "cupy", "allocation", "empty", _CUPY, left_open=True),
    FieldCase("core_memory_resource", "NVIDIA/cuda-python#2834", "cuda.core", "allocation", "allocate", _CORE,
              left_open=True),
    FieldCase("core_thread_memory_resource", "NVIDIA/cuda-python#2918", "cuda.core", "query_or_thread",
              "allocate", _CORE, capture_thread=False),
    FieldCase("core_sync", "NVIDIA/cuda-python#1235", "cuda.core", "sync", "sync", _CORE, left_open=True),
    FieldCase("numba_copy_to_host", "cupy/cupy#6290", "numba", "sync", "copy_to_host",
              "CudaAPIError: [900] Call to cuMemcpyDtoH results in CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
              left_open=True),
    FieldCase("numba_legacy_stream", "cupy/cupy#6290", "numba", "legacy_stream", "[]",
              "CudaAPIError: [906] Call to cuLaunchKernel results in CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
              left_open=True),
    FieldCase("cgl_conditional_body", "NVIDIA/cuda-python#111", "cugraphlab", "sync", "synchronize",
              "CudaError: cuStreamSynchronize failed: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
    FieldCase("cgl_host_callback", "cupy/cupy#9283", "cugraphlab", "host_callback", "cuMemGetInfo",
              "CUDA_ERROR_NOT_PERMITTED", event="call"),
    FieldCase("cgl_invalidated_teardown", "NVIDIA/cuda-python#2834", "cugraphlab", "allocation", "cuMemAlloc",
              "CudaError: cuMemAlloc failed: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
)


#: Replay hazards (the replay watch, ``cugraphlab doctor --replay``): every capture succeeds; the watch must flag
#: the broken script's capture site and not its fixed twin's (the cugraphlab cases: graphs.doctor.launches).
REPLAY_CASES: tuple[FieldCase, ...] = (
    FieldCase("replay_recapture", "pytorch/pytorch#171672", "torch", "recapture", "", ""),
    FieldCase("replay_stale_input", "triton-lang/triton#3166", "torch", "stale_input", "x", ""),
    FieldCase("replay_two_streams", "XPU-Forces/xpu_graph#491", "cugraphlab", "concurrent_launch", "cuGraphLaunch",
              ""),
    FieldCase("replay_input_race", "ashalliants/ninfer-3090#44", "cugraphlab", "input_race", "cuGraphLaunch", ""),
    FieldCase("replay_update_refused", "ggml-org/llama.cpp#7302", "cugraphlab", "update_refused",
              "cuGraphExecUpdate", ""),
    FieldCase("replay_freed_buffer", "triton-lang/triton#3166", "cugraphlab", "stale_input", "cuGraphLaunch", ""),
)

#: Correct programs (with every fixed twin, the clean set): the doctor must find nothing in them.
CLEAN: tuple[str, ...] = ("clean_torch_mlp", "clean_torch_train", "clean_torch_graphed_callables",
                          "clean_cupy_capture", "clean_triton_in_torch", "clean_core_builder",
                          "clean_torch_graph_per_shape", "clean_torch_recapture_after_resize")


def case(key: str) -> FieldCase:
    for c in CASES + REPLAY_CASES:
        if c.key == key:
            return c
    raise KeyError(f"no field case {key!r}; known: {', '.join(c.key for c in CASES)}")


def recorded(c: FieldCase) -> list:
    """What the stack watch records when case ``c`` runs on a GPU, as its metadata says (graphs.doctor.stacks'
    StackEvents: the capture's begin and end, the error its stack raises at the marked line): fed to
    ``graphs.doctor.stacks.explain_events``, the doctor's diagnosis of the case without a GPU."""
    from ..doctor.stacks import StackEvent, code_of

    invalidated = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
    file, here = str(c.script), c.line("here")
    stack = {"triton": "torch"}.get(c.stack, c.stack)  # Triton's refusal is raised by torch.cuda.synchronize
    if c.event == "call":
        return [StackEvent("call", "cugraphlab", file, here, "log_free_memory", call=c.call, code=c.text,
                           thread="host callback", in_callback=True)]
    raised = StackEvent("raise", stack, file, here, "main", text=c.text, code=code_of(c.text),
                        thread="MainThread" if c.capture_thread else "worker", capture_thread=c.capture_thread)
    if c.stack == "cugraphlab":  # capture_into and the door's own captures: no stack capture to patch
        return [raised]
    mismatch = "device mismatch: the capture stream is on cuda:1, the current device is cuda:0"
    begin = StackEvent("begin", c.stack, file, c.line("capture"), "main", stream="0x1", mode="global", capture=1,
                       call="7", text=mismatch if c.kind == "multi_device" else "")
    raised.capture = 1
    if c.event == "swallowed":
        lines = c.script.read_text().splitlines()
        end_line = next(i for i, t in enumerate(lines, 1) if i > here and "end_capture()" in t)
        raised.line, raised.code = end_line, invalidated
        return [begin, raised, StackEvent("end", c.stack, file, end_line, "main", capture=1, ok=False,
                                          code=invalidated, text=c.text)]
    events = [begin, raised]
    if not c.left_open:
        rng = c.kind == "rng"  # PyTorch refuses the generator before any CUDA call: the capture itself ends well
        events.append(StackEvent("end", c.stack, file, c.line("capture"), "main", capture=1, ok=rng,
                                 code="" if rng else invalidated, text="" if rng else f"RuntimeError: {invalidated}"))
    return events


field_case, recorded_events = case, recorded  # the names graphs exports
