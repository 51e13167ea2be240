"""The ways `cugraphlab compare` times: cugraphlab's own modes and the chain in CuPy and PyTorch.

A ``Way`` is one (library, mode) that can take inputs, be poisoned, run and be timed; baselines.py interleaves them.
CuPy and PyTorch are optional and imported lazily by ``load_cupy`` / ``load_torch``; a missing one gives rows with a
reason instead of figures.
"""
from __future__ import annotations

import time

import numpy as np

from .._version import __version__
from ..core.errors import InvalidArgumentError, positive_int
from ..core.memory import POISON_BITS, validate_size
from ..experiment.ops import DEFAULT_OPS, parse_ops
from .timing import timed_loop

__all__ = ["Way", "CugraphlabWay", "CupyChain", "TorchChain", "load_cupy", "load_torch", "short_error"]


class Way:
    """One way of running the chain: set inputs, poison outputs, run, read the result, and time a loop."""

    library = ""
    mode = ""
    kernels_per_iter = 0
    version = ""

    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        raise NotImplementedError

    def poison(self) -> None:
        raise NotImplementedError

    def run(self, iters: int) -> None:
        """Enqueue ``iters`` iterations (does not wait)."""
        raise NotImplementedError

    def synchronize(self) -> None:
        raise NotImplementedError

    def timed(self, iters: int) -> tuple[float, float]:
        """(wall µs, device µs) per iteration for one loop of ``iters`` iterations."""
        raise NotImplementedError

    def result(self) -> np.ndarray:
        """The chain's output of the last run, on the host (waits for it)."""
        raise NotImplementedError

    @property
    def label(self) -> str:
        return f"{self.library} {self.mode}"


class CugraphlabWay(Way):
    """cugraphlab's own ``Chain`` run in one of its modes; several ways may share one chain."""

    library = "cugraphlab"
    version = __version__

    def __init__(self, chain, mode: str, start, end):
        self.chain, self.mode, self.start, self.end = chain, mode, start, end
        self.kernels_per_iter = 1 if mode == "fused" else len(chain.ops)

    def set_inputs(self, x, y):
        self.chain.set_inputs(x, y)

    def poison(self):
        self.chain.poison()

    def run(self, iters):
        self.chain.run(self.mode, iters)

    def synchronize(self):
        self.chain.stream.synchronize()

    def timed(self, iters):
        return timed_loop(self.chain.stream, self.run, iters, self.start, self.end)

    def result(self):
        return self.chain.result(self.mode)


class _LibraryWay(Way):
    """A mode of a CupyChain or TorchChain."""

    def __init__(self, owner, mode: str):
        self.owner, self.mode = owner, mode
        self.library, self.version = owner.library, owner.version
        self.kernels_per_iter = len(owner.ops)

    def set_inputs(self, x, y):
        self.owner.set_inputs(x, y)

    def poison(self):
        self.owner.poison()

    def run(self, iters):
        self.owner.run(self.mode, iters)

    def synchronize(self):
        self.owner.synchronize()

    def timed(self, iters):
        return self.owner.timed(self.mode, iters)

    def result(self):
        return self.owner.result()


class _LibraryChain:
    """What the CuPy and PyTorch chains share: one iteration as library calls, their two ways, letting go."""

    def _iteration(self) -> None:
        for f, a, b, out in self.steps:  # (library function, operand, operand, preallocated output)
            f(a, b, out=out)

    def ways(self) -> list[Way]:
        return [_LibraryWay(self, "eager"), _LibraryWay(self, "graph")]

    def close(self) -> None:
        """Drop the graph and arrays (the library frees them when the last reference goes)."""
        self.synchronize()
        self._graph = None
        self.steps = ()
        self.x = self.y = None
        self.outs = []


class CupyChain(_LibraryChain):
    """The chain as CuPy ufunc calls on preallocated CuPy arrays, on its own non-blocking stream.

    ``run("eager", k)`` makes one ufunc call per op per iteration; ``run("graph", k)`` launches the captured
    one-iteration graph ``k`` times. ``cp`` is the imported ``cupy`` module (see ``load_cupy``).
    """

    library = "cupy"

    def __init__(self, cp, device_index: int, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0):
        self.cp = cp
        self.ops = parse_ops(ops)
        self.n = validate_size(n)
        self.version = cp.__version__
        self.device = cp.cuda.Device(device_index)
        with self.device:
            self.stream = cp.cuda.Stream(non_blocking=True)
            self.x = cp.empty(self.n, dtype=cp.float32)
            self.y = cp.empty(self.n, dtype=cp.float32)
            self.outs = [cp.empty(self.n, dtype=cp.float32) for _ in self.ops]
            self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
            self.device.synchronize()  # the allocations ran on the legacy stream
        # float32 scalars, so each ufunc picks its float32 loop and rounds as the reference does
        s, zero = np.float32(scalar), np.float32(0)
        steps, src = [], self.x
        for name, out in zip(self.ops, self.outs):
            if name == "add":
                steps.append((cp.add, src, self.y, out))
            elif name == "mul":
                steps.append((cp.multiply, src, s, out))
            elif name == "sub":
                steps.append((cp.subtract, src, self.y, out))
            else:
                steps.append((cp.maximum, src, zero, out))
            src = out
        self.steps = tuple(steps)
        self._graph = None

    def graph(self):
        """The one-iteration graph, captured on the chain's stream and uploaded (made once, then kept)."""
        if self._graph is None:
            with self.device, self.stream:
                self.stream.begin_capture()
                try:
                    self._iteration()
                except BaseException:
                    try:  # leave the stream usable; the capture's own error is the one to report
                        self.stream.end_capture()
                    except Exception:
                        pass
                    raise
                graph = self.stream.end_capture()
                graph.upload(self.stream)
                self.stream.synchronize()
            self._graph = graph
        return self._graph

    def run(self, mode: str, iters: int) -> None:
        positive_int("iterations", iters)
        if mode == "eager":
            steps = self.steps
            with self.device, self.stream:
                for _ in range(iters):
                    for f, a, b, out in steps:
                        f(a, b, out=out)
        elif mode == "graph":
            launch, s = self.graph().launch, self.stream
            with self.device:
                for _ in range(iters):
                    launch(s)
        else:
            raise InvalidArgumentError(f"CuPy runs the chain eager or graph, not {mode!r}")

    def timed(self, mode: str, iters: int) -> tuple[float, float]:
        if mode == "graph":
            self.graph()  # capture outside the timed region
        s = self.stream
        s.synchronize()
        t0 = time.perf_counter_ns()
        self.start.record(s)
        self.run(mode, iters)
        self.end.record(s)
        self.end.synchronize()
        t1 = time.perf_counter_ns()
        return (t1 - t0) / 1e3 / iters, self.cp.cuda.get_elapsed_time(self.start, self.end) * 1e3 / iters

    def synchronize(self) -> None:
        self.stream.synchronize()

    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        with self.device:
            self.stream.synchronize()
            self.x.set(np.ascontiguousarray(x, dtype=np.float32), stream=self.stream)
            self.y.set(np.ascontiguousarray(y, dtype=np.float32), stream=self.stream)
            self.stream.synchronize()

    def poison(self) -> None:
        with self.device, self.stream:
            for out in self.outs:
                out.view(self.cp.uint32).fill(POISON_BITS)
        self.stream.synchronize()

    def result(self) -> np.ndarray:
        with self.device:
            self.stream.synchronize()
            host = self.outs[-1].get(stream=self.stream)
            self.stream.synchronize()
        return host



class TorchChain(_LibraryChain):
    """The chain as PyTorch ``out=`` calls on preallocated CUDA tensors, on a side stream.

    ``run("eager", k)`` makes one call per op per iteration; ``run("graph", k)`` replays the captured
    one-iteration ``torch.cuda.CUDAGraph`` ``k`` times. ``torch`` is the imported module (see ``load_torch``).
    """

    library = "torch"

    def __init__(self, torch, device_index: int, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0):
        self.torch = torch
        self.ops = parse_ops(ops)
        self.n = validate_size(n)
        self.version = str(torch.__version__)
        self.device = torch.device("cuda", device_index)
        self.stream = torch.cuda.Stream(device=self.device)
        with torch.cuda.device(self.device):
            def empty():
                return torch.empty(self.n, dtype=torch.float32, device=self.device)

            self.x, self.y = empty(), empty()
            self.outs = [empty() for _ in self.ops]
            self.start = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize(self.device)
        # The scalar as the float32 value it stands for: PyTorch multiplies float32 tensors in float32.
        s = float(np.float32(scalar))
        steps, src = [], self.x
        for name, out in zip(self.ops, self.outs):
            if name == "add":
                steps.append((torch.add, src, self.y, out))
            elif name == "mul":
                steps.append((torch.mul, src, s, out))
            elif name == "sub":
                steps.append((torch.sub, src, self.y, out))
            else:
                steps.append((torch.clamp, src, 0.0, out))  # clamp(t, min=0): torch.relu's own kernel
            src = out
        self.steps = tuple(steps)
        self._graph = None

    def graph(self):
        """The one-iteration CUDAGraph, captured on the chain's stream after a warm-up there (made once)."""
        if self._graph is None:
            torch = self.torch
            with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
                for _ in range(3):  # PyTorch wants the captured ops run once on a side stream before capture
                    self._iteration()
            self.stream.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.device(self.device), torch.cuda.graph(graph, stream=self.stream):
                self._iteration()
            self.stream.synchronize()
            self._graph = graph
        return self._graph

    def run(self, mode: str, iters: int) -> None:
        positive_int("iterations", iters)
        torch = self.torch
        if mode == "eager":
            steps = self.steps
            with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
                for _ in range(iters):
                    for f, a, b, out in steps:
                        f(a, b, out=out)
        elif mode == "graph":
            replay = self.graph().replay
            with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
                for _ in range(iters):
                    replay()
        else:
            raise InvalidArgumentError(f"PyTorch runs the chain eager or graph, not {mode!r}")

    def timed(self, mode: str, iters: int) -> tuple[float, float]:
        if mode == "graph":
            self.graph()
        s = self.stream
        s.synchronize()
        t0 = time.perf_counter_ns()
        self.start.record(s)
        self.run(mode, iters)
        self.end.record(s)
        self.end.synchronize()
        t1 = time.perf_counter_ns()
        return (t1 - t0) / 1e3 / iters, self.start.elapsed_time(self.end) * 1e3 / iters

    def synchronize(self) -> None:
        self.stream.synchronize()

    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        torch = self.torch
        self.stream.synchronize()
        with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
            self.x.copy_(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)))
            self.y.copy_(torch.from_numpy(np.ascontiguousarray(y, dtype=np.float32)))
        self.stream.synchronize()

    def poison(self) -> None:
        torch = self.torch
        with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
            for out in self.outs:
                out.view(torch.int32).fill_(POISON_BITS)  # 0x7FC0DEAD < 2**31: the same bits as an int32
        self.stream.synchronize()

    def result(self) -> np.ndarray:
        torch = self.torch
        self.stream.synchronize()
        with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
            host = self.outs[-1].cpu().numpy()
        return host



# ------------------------------------------------------------------------------------- optional libraries

def load_cupy(device_index: int = 0):
    """(cupy module, "") when CuPy can run on the device, else (None, why not)."""
    try:
        import cupy
    except ModuleNotFoundError as e:
        if e.name == "cupy":
            return None, "not installed"
        return None, f"import failed: {short_error(e)}"
    except Exception as e:  # a broken install (missing CUDA libraries) raises ImportError or others at import
        return None, f"import failed: {short_error(e)}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return None, f"no CUDA in cupy ({short_error(e)})"
    if device_index >= count:
        return None, f"CuPy sees {count} device(s), not device {device_index}"
    return cupy, ""


def load_torch(device_index: int = 0):
    """(torch module, "") when PyTorch has CUDA and sees the device, else (None, why not)."""
    try:
        import torch
    except ModuleNotFoundError as e:
        if e.name == "torch":
            return None, "not installed"
        return None, f"import failed: {short_error(e)}"
    except Exception as e:
        return None, f"import failed: {short_error(e)}"
    try:
        if not torch.cuda.is_available():
            return None, "no CUDA in torch"
        count = torch.cuda.device_count()
    except Exception as e:
        return None, f"no CUDA in torch ({short_error(e)})"
    if device_index >= count:
        return None, f"torch sees {count} CUDA device(s), not device {device_index}"
    return torch, ""


def short_error(e: BaseException, limit: int = 160) -> str:
    """The exception as one short line: type and message."""
    text = f"{type(e).__name__}: {e}".replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."
