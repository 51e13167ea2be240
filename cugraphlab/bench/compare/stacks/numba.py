"""numba-cuda: kernels compiled eagerly from explicit signatures, each launch configured ONCE.

``cuda.jit("void(float32[::1], float32[::1], float32[::1], int64)", fastmath=False)`` compiles at definition (no
type dispatch at call time); ``kernel[grid, block, stream]`` is built once and stored, so a launch is one call of
the configured kernel (numba still walks its arguments on every call). One element per thread in a grid-stride
loop; numba's own code generation, so device time is shown. Per-op kernels hold a single float32 op each, so
nothing can be contracted into an FMA: bit-exact.

Graph: numba-cuda has no graph API. The stream numba launches on is put in capture mode with cuda.bindings
(``cuStreamBeginCapture``), one iteration of numba launches is recorded, then ``cuGraphInstantiate`` /
``cuGraphUpload`` and one ``cuGraphLaunch`` per iteration (the same thing a ``torch.cuda.graph`` around
``cuda.external_stream(...)`` launches would record, without needing PyTorch).

numba on a NumPy it does not support does not import: ``CUGRAPHLAB_STACK_PYTHONPATH_NUMBA`` (prepended to
``sys.path`` in this worker only, before numba is imported) can point at a folder holding compatible numba /
numba-cuda / llvmlite wheels unpacked; the row says which numba, numba-cuda and NumPy ran and where numba came from.
"""
from __future__ import annotations

import os

import numpy as np

from ..way import POISON_BITS, Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "NumbaWay", "PYTHONPATH_ENV"]

PYTHONPATH_ENV = "CUGRAPHLAB_STACK_PYTHONPATH_NUMBA"
BLOCK = 256


def _build_kernels(cuda):
    """The four chain kernels (``_numba_kernels``), compiled now for the current device: eager signatures,
    fastmath off."""
    from . import _numba_kernels as nk

    return {name: cuda.jit(sig, fastmath=False)(getattr(nk, name)) for name, sig in nk.SIGNATURES.items()}


def _stream_int(stream) -> int:
    h = stream.handle
    return int(getattr(h, "value", h) or 0)


class NumbaWay(Way):
    way = "kernel[grid, block, stream] configured once"

    def __init__(self, stack, n, ops, scalar):
        super().__init__()
        cuda = self.cuda = stack.cuda
        self.n, self.ops = n, tuple(ops)
        self.stream = cuda.stream()
        s = self.stream
        self.x = cuda.device_array(n, dtype=np.float32, stream=s)
        self.y = cuda.device_array(n, dtype=np.float32, stream=s)
        self.outs = [cuda.device_array(n, dtype=np.float32, stream=s) for _ in self.ops]
        self.poison_host = np.full(n, POISON_BITS, dtype=np.uint32).view(np.float32)
        self.start, self.end = cuda.event(timing=True), cuda.event(timing=True)
        grid = -(-n // BLOCK)
        K = stack.kernels
        sf, nn = np.float32(scalar), np.int64(n)
        self.add_call = (K["add"][grid, BLOCK, s], (self.outs[0], self.x, self.y, nn))
        calls, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            args = ((dst, src, self.y, nn) if name in ("add", "sub") else
                    (dst, src, sf, nn) if name == "mul" else (dst, src, nn))
            calls.append((K[name][grid, BLOCK, s], args))
            src = dst
        self.calls = tuple(calls)
        self.exec = None
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "no fused numba kernel written (the fused figure is cugraphlab's and JAX's)"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}
        self.notes = {"graph": "numba launches captured with cuStreamBeginCapture (cuda.bindings), cuGraphLaunch"}

    def _run_launch(self, k):
        launch, args = self.add_call
        for _ in range(k):
            launch(*args)

    def _run_eager(self, k):
        calls = self.calls
        for _ in range(k):
            for launch, args in calls:
                launch(*args)

    def prepare(self, mode):
        if mode != "graph" or self.exec is not None:
            return
        from cuda.bindings import driver as d

        h = d.CUstream(_stream_int(self.stream))

        def ok(r, call):
            if int(r[0]) != 0:
                raise RuntimeError(f"{call}: {getattr(r[0], 'name', r[0])}")
            return r[1] if len(r) > 1 else None

        ok(d.cuStreamBeginCapture(h, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
           "cuStreamBeginCapture")
        try:
            for launch, args in self.calls:
                launch(*args)
        finally:
            graph = ok(d.cuStreamEndCapture(h), "cuStreamEndCapture")
        try:
            self.exec = ok(d.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        finally:
            d.cuGraphDestroy(graph)
        ok(d.cuGraphUpload(self.exec, h), "cuGraphUpload")
        self._graph_launch, self._h = d.cuGraphLaunch, h

    def _run_graph(self, k):
        fn, e, h = self._graph_launch, self.exec, self._h
        for _ in range(k):
            r = fn(e, h)
            if r[0]:
                raise RuntimeError(f"cuGraphLaunch: {r[0]}")

    def set_inputs(self, x, y):
        self.x.copy_to_device(np.ascontiguousarray(x, np.float32), stream=self.stream)
        self.y.copy_to_device(np.ascontiguousarray(y, np.float32), stream=self.stream)
        self.stream.synchronize()

    def poison(self):
        for out in self.outs:
            out.copy_to_device(self.poison_host, stream=self.stream)
        self.stream.synchronize()

    def result(self, mode):
        src = self.outs[0] if mode == "launch" else self.outs[-1]
        host = src.copy_to_host(stream=self.stream)
        self.stream.synchronize()
        return host

    def record_start(self):
        self.start.record(stream=self.stream)

    def record_end(self):
        self.end.record(stream=self.stream)

    def elapsed_ms(self):
        return self.cuda.event_elapsed_time(self.start, self.end)

    def close(self):
        self.stream.synchronize()
        if self.exec is not None:
            from cuda.bindings import driver as d

            d.cuGraphExecDestroy(self.exec)
            self.exec = None


def _origin(module) -> str:
    """Where numba came from: the override folder, or the image's own site-packages."""
    extra = [p for p in os.environ.get(PYTHONPATH_ENV, "").split(os.pathsep) if p]
    where = os.path.abspath(getattr(module, "__file__", "") or "")
    for p in extra:
        if where.startswith(os.path.abspath(p) + os.sep):
            return f"from {PYTHONPATH_ENV}"
    return "from the image"


class _NumbaStack(Stack):
    name = "numba"

    def __init__(self, numba, cuda, ordinal):
        from importlib.metadata import PackageNotFoundError, version

        self.cuda = cuda
        cuda.select_device(ordinal)
        self.kernels = _build_kernels(cuda)
        try:
            numba_cuda = version("numba-cuda")
        except PackageNotFoundError:
            numba_cuda = None
        self.versions = {"numba": numba.__version__, "numba-cuda": numba_cuda, "numpy_in_worker": np.__version__,
                         "numba_origin": _origin(numba)}

    def ways(self, n, ops, scalar):
        unknown = [o for o in ops if o not in self.kernels]
        if unknown:
            raise StackUnavailable(f"no numba kernel for op {unknown[0]!r}")
        return [NumbaWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _NumbaStack:
    """numba-cuda on device ``device``; the reason (with NumPy's version) when it does not import."""
    try:
        import numba
        from numba import cuda
    except Exception as e:
        reason = str(import_error(e, "numba"))
        if not reason.startswith("not installed"):
            reason += (f" [numpy {np.__version__} in this worker; set {PYTHONPATH_ENV} to a folder with a numba "
                       "that supports it]")
        raise StackUnavailable(reason) from e
    try:
        if not cuda.is_available():
            raise StackUnavailable("numba.cuda sees no GPU")
        return _NumbaStack(numba, cuda, device)
    except StackUnavailable:
        raise
    except Exception as e:
        raise StackUnavailable(f"numba-cuda could not start: {short_error(e)}") from e
