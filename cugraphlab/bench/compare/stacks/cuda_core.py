"""cuda.core (1.x): ``launch(stream, config, kernel, *args)`` with a LaunchConfig built once, our cubin.

The cubin is loaded with ``ObjectCode.from_cubin`` (``cuLibraryLoadData`` inside cuda.core) and ``get_kernel``;
buffers come from ``Device.allocate``; arguments are Python ints (cuda.core passes an int as a pointer),
``np.float32`` and ``np.uint64`` (cuda.core packs them on every ``launch``: that is its per-launch cost).
Graph: ``stream.create_graph_builder().begin_building()``, the same ``launch`` calls on the builder,
``end_building().complete()``, ``upload``, then ``Graph.launch(stream)`` per iteration. Events:
``stream.record(options=EventOptions(timing_enabled=True))``; ``end - start`` is milliseconds.
Host copies and poisoning go through cuda.bindings on the same stream (setup only, never timed).
"""
from __future__ import annotations

import numpy as np

from ..way import POISON_BITS, Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "CudaCoreWay"]


def _timing_options(core):
    """EventOptions with timing on: the field is ``timing_enabled`` in cuda.core 1.x, ``enable_timing`` before."""
    try:
        return core.EventOptions(timing_enabled=True)
    except TypeError:
        return core.EventOptions(enable_timing=True)


class CudaCoreWay(Way):
    way = "launch() with a prebuilt LaunchConfig"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        super().__init__()
        core, drv = stack.core, stack.drv
        self.core, self.drv, self.n = core, drv, n
        self.stream = stack.device.create_stream()
        nbytes = 4 * n
        alloc = stack.device.allocate
        self.x, self.y = alloc(nbytes, stream=self.stream), alloc(nbytes, stream=self.stream)
        self.outs = [alloc(nbytes, stream=self.stream) for _ in ops]
        self.stream.sync()
        self.config = core.LaunchConfig(grid=stack.grid(n), block=256)
        ptr = lambda b: int(b.handle)  # noqa: E731 - the device address as an int
        self.add_args = (stack.kernels["add"], ptr(self.outs[0]), ptr(self.x), ptr(self.y), np.uint64(n))
        steps, src = [], self.x
        for name, dst in zip(ops, self.outs):
            k = stack.kernels[name]
            if name in ("add", "sub"):
                steps.append((k, ptr(dst), ptr(src), ptr(self.y), np.uint64(n)))
            elif name == "mul":
                steps.append((k, ptr(dst), ptr(src), np.float32(scalar), np.uint64(n)))
            else:
                steps.append((k, ptr(dst), ptr(src), np.uint64(n)))
            src = dst
        self.steps = tuple(steps)
        self.graph = None
        self.opts = _timing_options(core)
        self.start = self.end = None
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "same fused kernel as cugraphlab's fused row"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        launch, s, cfg = self.core.launch, self.stream, self.config
        kern, *args = self.add_args
        for _ in range(k):
            launch(s, cfg, kern, *args)

    def _iteration(self, target):
        launch, cfg = self.core.launch, self.config
        for kern, *args in self.steps:
            launch(target, cfg, kern, *args)

    def _run_eager(self, k):
        launch, s, cfg, steps = self.core.launch, self.stream, self.config, self.steps
        for _ in range(k):
            for kern, *args in steps:
                launch(s, cfg, kern, *args)

    def prepare(self, mode):
        if mode != "graph" or self.graph is not None:
            return
        gb = self.stream.create_graph_builder().begin_building()
        self._iteration(gb)
        self.graph = gb.end_building().complete()
        self.graph.upload(self.stream)
        self.stream.sync()

    def _run_graph(self, k):
        launch, s = self.graph.launch, self.stream
        for _ in range(k):
            launch(s)

    # data through cuda.bindings on this stream (setup only) ------------------------------------------------------
    def _h(self):
        return self.stream.handle

    def set_inputs(self, x, y):
        d = self.drv
        for buf, host in ((self.x, x), (self.y, y)):
            host = np.ascontiguousarray(host, np.float32)
            _ok(d.cuMemcpyHtoDAsync(int(buf.handle), host.ctypes.data, host.nbytes, self._h()), "cuMemcpyHtoDAsync")
            self.stream.sync()

    def poison(self):
        for buf in self.outs:
            _ok(self.drv.cuMemsetD32Async(int(buf.handle), POISON_BITS, self.n, self._h()), "cuMemsetD32Async")
        self.stream.sync()

    def result(self, mode):
        out = np.empty(self.n, np.float32)
        src = self.outs[0] if mode == "launch" else self.outs[-1]
        _ok(self.drv.cuMemcpyDtoHAsync(out.ctypes.data, int(src.handle), out.nbytes, self._h()), "cuMemcpyDtoHAsync")
        self.stream.sync()
        return out

    def synchronize(self):
        self.stream.sync()

    def record_start(self):
        self.start = self.stream.record(options=self.opts)

    def record_end(self):
        self.end = self.stream.record(options=self.opts)

    def wait_end(self):
        self.end.sync()

    def elapsed_ms(self):
        return float(self.end - self.start)

    def close(self):
        self.stream.sync()
        for b in (self.x, self.y, *self.outs):
            try:
                b.close(self.stream)
            except Exception:
                pass
        self.graph = None


def _ok(result, call):
    if int(result[0]) != 0:
        raise RuntimeError(f"{call} failed: {getattr(result[0], 'name', result[0])}")


class _CudaCoreStack(Stack):
    name = "cuda_core"

    def __init__(self, core, ordinal, ops):
        from cuda.bindings import driver

        from ..shared import compile_cubins

        self.core, self.drv = core, driver
        self.device = core.Device(ordinal)
        self.device.set_current()
        cc = self.device.compute_capability
        self.sm_count = self.device.properties.multiprocessor_count
        images, kind = compile_cubins((cc.major, cc.minor), ops)
        load = core.ObjectCode.from_cubin if kind == "cubin" else core.ObjectCode.from_ptx
        self.objects = {name: load(img, name=name) for name, img in images.items()}
        self.kernels = {name: obj.get_kernel(name) for name, obj in self.objects.items()}
        from importlib.metadata import version

        self.versions = {"cuda-core": getattr(core, "__version__", None) or version("cuda-core")}

    def grid(self, n):
        from ..shared import chain_grid

        return chain_grid(n, self.sm_count)

    def ways(self, n, ops, scalar):
        return [CudaCoreWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _CudaCoreStack:
    """cuda.core on device ``device``; StackUnavailable when it is missing or cannot reach a GPU."""
    try:
        import cuda.core as core

        core.LaunchConfig, core.launch, core.ObjectCode, core.EventOptions  # noqa: B018 - 1.x top-level names
    except Exception as e:
        raise import_error(e, "cuda") from e
    try:
        return _CudaCoreStack(core, device, ops)
    except Exception as e:
        raise StackUnavailable(f"cuda.core could not start: {short_error(e)}") from e
