"""PyTorch ops: ``torch.add/mul/sub(..., out=...)``, relu as ``torch.clamp(t, min=0)`` (torch.relu's own kernel).

PyTorch's own kernels, one op call (one kernel) per op into preallocated tensors, on a side ``torch.cuda.Stream``;
the scalar is the float32 value it stands for. Device time shown (not our kernels). Graph: one iteration captured
into a ``torch.cuda.CUDAGraph`` after a warm-up on the side stream (PyTorch's rule), one ``replay()`` per
iteration. Events: ``torch.cuda.Event(enable_timing=True)``. ``TorchData`` is shared with ``stacks.triton``.
"""
from __future__ import annotations

import numpy as np

from ..way import POISON_BITS, Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "load_torch", "TorchData", "TorchOpsWay"]


def load_torch(ordinal: int):
    """The torch module with CUDA device ``ordinal`` current; StackUnavailable with the reason otherwise."""
    try:
        import torch
    except Exception as e:
        raise import_error(e, "torch") from e
    try:
        if not torch.cuda.is_available():
            raise StackUnavailable("no CUDA in torch")
        count = torch.cuda.device_count()
    except StackUnavailable:
        raise
    except Exception as e:
        raise StackUnavailable(f"no CUDA in torch: {short_error(e)}") from e
    if ordinal >= count:
        raise StackUnavailable(f"torch sees {count} CUDA device(s), not device {ordinal}")
    torch.cuda.set_device(ordinal)
    return torch


def torch_versions(torch) -> dict:
    return {"torch": str(torch.__version__), "torch_cuda": getattr(torch.version, "cuda", None)}


class TorchData(Way):
    """x, y and one output per op as CUDA tensors, a side stream and two timing events."""

    def __init__(self, torch, n, ops, scalar):
        super().__init__()
        self.torch, self.n, self.ops = torch, n, tuple(ops)
        self.device = torch.device("cuda", torch.cuda.current_device())
        self.stream = torch.cuda.Stream(device=self.device)
        with torch.cuda.stream(self.stream):
            empty = lambda: torch.empty(n, dtype=torch.float32, device=self.device)  # noqa: E731
            self.x, self.y = empty(), empty()
            self.outs = [empty() for _ in self.ops]
        self.stream.synchronize()
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.graph = None

    def capture(self, iteration) -> None:
        """Warm ``iteration`` up on the side stream, then capture one call into a CUDAGraph (made once)."""
        if self.graph is not None:
            return
        torch = self.torch
        with torch.cuda.stream(self.stream):
            for _ in range(3):
                iteration()
        self.stream.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=self.stream):
            iteration()
        self.stream.synchronize()
        self.graph = graph

    def _run_graph(self, k):
        replay = self.graph.replay
        with self.torch.cuda.stream(self.stream):
            for _ in range(k):
                replay()

    def set_inputs(self, x, y):
        torch = self.torch
        self.stream.synchronize()
        with torch.cuda.stream(self.stream):
            self.x.copy_(torch.from_numpy(np.ascontiguousarray(x, np.float32)))
            self.y.copy_(torch.from_numpy(np.ascontiguousarray(y, np.float32)))
        self.stream.synchronize()

    def poison(self):
        with self.torch.cuda.stream(self.stream):
            for out in self.outs:
                out.view(self.torch.int32).fill_(POISON_BITS)  # 0x7FC0DEAD < 2**31: the same bits as an int32
        self.stream.synchronize()

    def result(self, mode):
        self.stream.synchronize()
        src = self.outs[0] if mode == "launch" else self.outs[-1]
        with self.torch.cuda.stream(self.stream):
            host = src.cpu().numpy()
        return host

    def elapsed_ms(self):
        return self.start.elapsed_time(self.end)

    def close(self):
        self.stream.synchronize()
        self.graph = None
        self.outs = []


class TorchOpsWay(TorchData):
    way = "ops with out="

    def __init__(self, torch, n, ops, scalar):
        super().__init__(torch, n, ops, scalar)
        s = float(np.float32(scalar))
        fns = {"add": torch.add, "mul": torch.mul, "sub": torch.sub, "relu": torch.clamp}
        steps, src = [], self.x
        for name, dst in zip(self.ops, self.outs):
            second = self.y if name in ("add", "sub") else (s if name == "mul" else 0.0)
            steps.append((fns[name], src, second, dst))
            src = dst
        self.steps = tuple(steps)
        self.runners = {"launch": self._run_launch, "eager": self._run_eager, "graph": self._run_graph}
        self.unsupported = {"fused": "no one-kernel form without a compiler (torch.compile is another way)"}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops)}

    def _run_launch(self, k):
        add, x, y, out = self.torch.add, self.x, self.y, self.outs[0]
        with self.torch.cuda.stream(self.stream):
            for _ in range(k):
                add(x, y, out=out)

    def _iteration(self):
        for f, a, b, out in self.steps:
            f(a, b, out=out)

    def _run_eager(self, k):
        steps = self.steps
        with self.torch.cuda.stream(self.stream):
            for _ in range(k):
                for f, a, b, out in steps:
                    f(a, b, out=out)

    def prepare(self, mode):
        if mode == "graph":
            self.capture(self._iteration)


class _TorchStack(Stack):
    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        self.versions = torch_versions(torch)

    def ways(self, n, ops, scalar):
        return [TorchOpsWay(self.torch, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _TorchStack:
    """PyTorch ops on CUDA device ``device``."""
    return _TorchStack(load_torch(device))
