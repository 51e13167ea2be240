"""Triton: its ``kern[grid](...)`` call, and its compiled kernel's launcher called directly.

Kernels: ``_triton_kernels`` (Triton's own code generation, so device time is shown). Buffers and stream are
PyTorch's (``TorchData``); Triton launches on PyTorch's current stream.

* ``kern[grid]``: ``kernel[grid](out, x, y, n, BLOCK=1024, enable_fp_fusion=False)`` per launch: Triton's JIT
  dispatch (argument binding, specialization key, cache lookup) then its launcher.
* ``compiled launcher``: the ``CompiledKernel`` that ``kernel[grid](...)`` returns (Triton 3.x ``JITFunction.run``
  returns it) is kept, and its launcher ``compiled.run`` (the C launcher Triton built for it) is called as
  ``JITFunction.run`` itself calls it: ``run(gx, gy, gz, stream, compiled.function, compiled.packed_metadata,
  launch_metadata=None, enter_hook=None, exit_hook=None, *all kernel arguments incl. constexprs)``, with device
  pointers passed as ints (falls back to tensors if the launcher refuses ints).

Graph: one iteration captured with ``torch.cuda.graph`` (Triton launches go to the capture stream), replayed.
Fused: Triton's one-kernel chain (default ops only).
"""
from __future__ import annotations

import numpy as np

from ..way import Stack, StackUnavailable, import_error, short_error
from .torch import TorchData, load_torch, torch_versions

__all__ = ["open_stack", "TritonJitWay", "TritonLauncherWay"]

_OPTS = {"enable_fp_fusion": False}


class _TritonBase(TorchData):
    def __init__(self, stack, n, ops, scalar):
        super().__init__(stack.torch, n, ops, scalar)
        self.K, self.B = stack.kernels, stack.block
        self.grid = (-(-n // self.B),)
        self.scalar = float(np.float32(scalar))
        self.fused_ok = tuple(ops) == ("add", "mul", "sub", "relu")
        self.out_fused = self.torch.empty(n, dtype=self.torch.float32, device=self.device)
        self.outs_all = [*self.outs, self.out_fused]
        steps, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            args = ((dst, src, self.y, n) if name in ("add", "sub") else
                    (dst, src, self.scalar, n) if name == "mul" else (dst, src, n))
            steps.append((name, args))
            src = dst
        self.steps = steps
        self.add_args = (self.outs[0], self.x, self.y, n)
        self.fused_args = (self.out_fused, self.x, self.y, self.scalar, n)
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops), "fused": 1}
        if not self.fused_ok:
            self.unsupported["fused"] = "Triton fused kernel written for the default chain only"

    def poison(self):
        super().poison()
        from ..way import POISON_BITS

        with self.torch.cuda.stream(self.stream):
            self.out_fused.view(self.torch.int32).fill_(POISON_BITS)
        self.stream.synchronize()

    def result(self, mode):
        if mode != "fused":
            return super().result(mode)
        self.stream.synchronize()
        return self.out_fused.cpu().numpy()


class TritonJitWay(_TritonBase):
    way = "kern[grid]"

    def __init__(self, stack, n, ops, scalar):
        super().__init__(stack, n, ops, scalar)
        K, g = self.K, self.grid
        self.add_call = (K["add"][g], self.add_args)
        self.calls = tuple((K[name][g], args) for name, args in self.steps)
        self.fused_call = (K["fused"][g], self.fused_args)
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        if self.fused_ok:
            self.runners["fused"] = self._run_fused
        self.notes = {"fused": "one Triton kernel launched per iteration (host-bound when the kernel is short)"}

    def _loop(self, calls, k):
        B = self.B
        with self.torch.cuda.stream(self.stream):
            for _ in range(k):
                for launch, args in calls:
                    launch(*args, BLOCK=B, **_OPTS)

    def _run_launch(self, k):
        self._loop((self.add_call,), k)

    def _run_eager(self, k):
        self._loop(self.calls, k)

    def _run_fused(self, k):
        self._loop((self.fused_call,), k)

    def _iteration(self):
        B = self.B
        for launch, args in self.calls:
            launch(*args, BLOCK=B, **_OPTS)

    def prepare(self, mode):
        if mode == "graph":
            self.capture(self._iteration)


class TritonLauncherWay(_TritonBase):
    way = "compiled launcher (CompiledKernel.run)"

    def __init__(self, stack, n, ops, scalar):
        super().__init__(stack, n, ops, scalar)
        self.unsupported.setdefault("graph", "same graph as the kern[grid] row (same kernels, captured alike)")
        self.stream_handle = self.stream.cuda_stream
        self.pointer_args = "ints"
        try:
            self.add_call = self._compiled("add", self.add_args)
            self._fire(self.add_call)  # does this launcher take raw device pointers?
            self.stream.synchronize()
        except Exception:
            self.pointer_args = "tensors"
            self.add_call = self._compiled("add", self.add_args)
        self.calls = tuple(self._compiled(name, args) for name, args in self.steps)
        self.fused_call = self._compiled("fused", self.fused_args) if self.fused_ok else None
        self.runners = {"launch": self._run_launch, "eager": self._run_eager}
        if self.fused_ok:
            self.runners["fused"] = self._run_fused
        note = f"device pointers passed as {self.pointer_args}"
        self.notes = {"launch": note, "eager": note, "fused": "one launch per iteration"}

    def _compiled(self, name, args):
        """(launcher, full argument tuple) for ``name``: compile through kern[grid] once on the way's stream."""
        kern, g = self.K[name], self.grid
        with self.torch.cuda.stream(self.stream):
            compiled = kern[g](*args, BLOCK=self.B, **_OPTS)
        self.stream.synchronize()
        if compiled is None or not hasattr(compiled, "packed_metadata"):
            raise StackUnavailable("this Triton does not return its CompiledKernel from kern[grid](...)")
        raw = tuple((a.data_ptr() if self.pointer_args == "ints" else a) if hasattr(a, "data_ptr") else a
                    for a in args)
        full = (g[0], 1, 1, self.stream_handle, compiled.function, compiled.packed_metadata, None, None, None,
                *raw, self.B)
        return compiled.run, full

    @staticmethod
    def _fire(call):
        run, full = call
        run(*full)

    def _run_launch(self, k):
        run, full = self.add_call
        for _ in range(k):
            run(*full)

    def _run_eager(self, k):
        calls = self.calls
        for _ in range(k):
            for run, full in calls:
                run(*full)

    def _run_fused(self, k):
        run, full = self.fused_call
        for _ in range(k):
            run(*full)


class _TritonStack(Stack):
    name = "triton"

    def __init__(self, torch, triton, kernels_module):
        self.torch, self.triton = torch, triton
        self.kernels, self.block = kernels_module.KERNELS, kernels_module.BLOCK
        self.versions = {"triton": triton.__version__, **torch_versions(torch)}

    def ways(self, n, ops, scalar):
        unknown = [o for o in ops if o not in self.kernels]
        if unknown:
            raise StackUnavailable(f"no Triton kernel for op {unknown[0]!r}")
        return [TritonJitWay(self, n, ops, scalar), TritonLauncherWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _TritonStack:
    """Triton (with PyTorch for buffers and streams) on device ``device``."""
    from . import _triton_kernels as triton_kernels

    if triton_kernels.IMPORT_ERROR is not None:
        raise import_error(triton_kernels.IMPORT_ERROR, "triton")
    torch = load_torch(device)
    import triton
    try:
        return _TritonStack(torch, triton, triton_kernels)
    except Exception as e:
        raise StackUnavailable(f"triton could not start: {short_error(e)}") from e
