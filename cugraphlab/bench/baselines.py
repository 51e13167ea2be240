"""The same chain in CuPy and PyTorch, timed beside cugraphlab's own ways in one interleaved run.

Each library runs the chain exactly as ``cugraphlab.chain`` defines it (first op reads x, add/sub take y, mul takes
the float32 scalar, each op writes its own preallocated buffer), one library call and so one kernel per op:

* **CuPy eager**: ``cp.add(x, y, out=t1)``, ``cp.multiply(t1, s, out=t2)``, ``cp.subtract``, relu as
  ``cp.maximum(t, 0, out=...)``, on a non-blocking ``cupy.cuda.Stream``.
* **CuPy graph**: one iteration captured with ``Stream.begin_capture()`` / ``end_capture()``, then one
  ``Graph.launch(stream)`` per iteration.
* **PyTorch eager**: ``torch.add/mul/sub(..., out=...)``, relu as ``torch.clamp(t, 0.0, out=...)`` (what
  ``torch.relu`` does), on a side ``torch.cuda.Stream``.
* **PyTorch graph**: one iteration captured into a ``torch.cuda.CUDAGraph``, one ``replay()`` per iteration.

Both relu idioms are the libraries' stock ones; they differ from cugraphlab's relu (``t > 0 ? t : 0``, which NumPy's
reference mirrors) only for NaN (they keep it) and perhaps the sign of a zero. From finite inputs the chain can only
make -0.0 by multiplying an exact zero by a negative scalar, and never NaN at these magnitudes, so on the random
normal inputs used here (and any scalar >= 0) every way is compared BIT-EXACTLY with ``chain.reference``; each
timed loop starts from fresh inputs and NaN-poisoned outputs, so a stale or unwritten element cannot pass.

CuPy and PyTorch are optional and imported only here, lazily: a library that is missing (or has no CUDA) gives
rows with no figures and a note saying why. All libraries share the device's primary context (cugraphlab's
``Device``, the CUDA runtime of CuPy and of PyTorch all use it), so they coexist in one process.

Timing is that of ``cugraphlab.bench.experiment``: per loop of ``iters`` iterations, the host wall clock
(``perf_counter_ns`` from before the first call until the end event's synchronize returns) and the device clock
(events recorded on the library's own stream around the loop), both per iteration; warm-up first, an untimed
lead-in of the same way before each timed loop, and the ways interleaved repeat by repeat so drift hits all alike.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Callable, Sequence

import numpy as np

from .._version import __version__
from ..calls import driver_fn
from ..chain import DEFAULT_OPS, compare_bits, parse_ops, reference
from ..errors import InvalidArgumentError, check
from ..memory import POISON_BITS, validate_size
from .stats import Summary, summarize

__all__ = [
    "LIBRARIES",
    "DEFAULT_SIZES",
    "WAYS",
    "WALL_CLOCK",
    "DEVICE_CLOCK",
    "COPY_CLOCK",
    "CompareRow",
    "CompareResult",
    "CopyBandwidth",
    "Way",
    "CugraphlabWay",
    "CupyChain",
    "TorchChain",
    "load_cupy",
    "load_torch",
    "copy_bandwidth",
    "compare",
]

LIBRARIES = ("cugraphlab", "cupy", "torch")
DEFAULT_SIZES = (1 << 20, 1024)
# Every (library, mode) a comparison times, in table order.
WAYS = (("cugraphlab", "eager"), ("cugraphlab", "graph"), ("cugraphlab", "fused"),
        ("cupy", "eager"), ("cupy", "graph"), ("torch", "eager"), ("torch", "graph"))

WALL_CLOCK = "perf_counter_ns (host wall clock, loop start to end-event sync)"
DEVICE_CLOCK = "CUDA events on each library's own stream around the loop (cuEventElapsedTime / cudaEventElapsedTime)"
COPY_CLOCK = "cuEventElapsedTime around back-to-back cuMemcpyDtoDAsync copies"
DEFAULT_COPY_BYTES = 256 << 20
COPIES_PER_SAMPLE = 10


# ---------------------------------------------------------------------------------------------------- records

@dataclass
class CompareRow:
    """One way of running the chain at one size: medians over repeats, flat so it is also a CSV row.

    ``us_per_iter``/``p5``/``p95`` come from the host wall clock, ``device_*`` from CUDA events.
    ``ratio_vs_cugraphlab_eager`` is this row's wall time over cugraphlab eager's at the same size, measured in the
    same run (below 1: faster). Rows of a library that could not run have ``None`` figures and a ``note``.
    """

    library: str
    mode: str
    size: int
    iters: int = 0
    kernels_per_iter: int | None = None
    us_per_iter: float | None = None
    p5: float | None = None
    p95: float | None = None
    device_us_per_iter: float | None = None
    device_p5: float | None = None
    device_p95: float | None = None
    verified: bool | None = None
    mismatches: int | None = None
    ratio_vs_cugraphlab_eager: float | None = None
    version: str | None = None
    note: str = ""

    @property
    def measured(self) -> bool:
        return self.us_per_iter is not None


@dataclass
class CompareResult:
    """A comparison run: its configuration, one row per (library, mode, size), the device copy roof, the env."""

    config: dict
    rows: list[CompareRow]
    env: dict
    copy_gbps: float | None = None
    copy: dict | None = None  # the copy measurement: bytes, copies per sample, Summary of GB/s
    clocks: dict = field(default_factory=lambda: {"wall": WALL_CLOCK, "device": DEVICE_CLOCK, "copy": COPY_CLOCK})
    kind: str = "cugraphlab.compare"

    @property
    def sizes(self) -> list[int]:
        return list(dict.fromkeys(r.size for r in self.rows))

    def rows_for(self, size: int) -> list[CompareRow]:
        return [r for r in self.rows if r.size == size]

    def row(self, library: str, mode: str, size: int | None = None) -> CompareRow:
        size = self.sizes[0] if size is None else size
        for r in self.rows:
            if (r.library, r.mode, r.size) == (library, mode, size):
                return r
        raise KeyError((library, mode, size))

    @property
    def ok(self) -> bool:
        """Every way that ran matched NumPy bit for bit."""
        return all(r.verified for r in self.rows if r.measured)

    def plot_rows(self) -> list[dict]:
        """The measured rows as dicts, as ``plot.plot_compare`` wants them."""
        return [asdict(r) for r in self.rows if r.measured]

    def csv_rows(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "CompareResult":
        """Rebuild a result from ``to_dict()`` output (e.g. a JSON file), to render or plot it again."""
        names = {f.name for f in fields(CompareRow)}
        rows = [CompareRow(**{k: v for k, v in r.items() if k in names}) for r in d["rows"]]
        return cls(config=dict(d["config"]), rows=rows, env=dict(d.get("env", {})), copy_gbps=d.get("copy_gbps"),
                   copy=d.get("copy"), clocks=dict(d.get("clocks") or {}), kind=d.get("kind", "cugraphlab.compare"))


@dataclass
class CopyBandwidth:
    """Device-to-device copy bandwidth, bytes read + written per second (the memory roof the chain runs into)."""

    nbytes: int
    copies_per_sample: int
    gbps: Summary

    def to_dict(self) -> dict:
        return {"bytes": self.nbytes, "copies_per_sample": self.copies_per_sample, "gbps": self.gbps.to_dict()}


# ------------------------------------------------------------------------------------------- the ways to time

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
        s = self.chain.stream
        s.synchronize()
        t0 = time.perf_counter_ns()
        self.start.record(s)
        self.chain.run(self.mode, iters)
        self.end.record(s)
        self.end.synchronize()
        t1 = time.perf_counter_ns()
        return (t1 - t0) / 1e3 / iters, self.start.elapsed_ms(self.end) * 1e3 / iters

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


def _check_iters(iters) -> int:
    if isinstance(iters, bool) or not isinstance(iters, int) or iters < 1:
        raise InvalidArgumentError(f"iterations must be an integer >= 1, got {iters!r}")
    return iters


class CupyChain:
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

    def _iteration(self) -> None:
        for f, a, b, out in self.steps:
            f(a, b, out=out)

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
        _check_iters(iters)
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

    def ways(self) -> list[Way]:
        return [_LibraryWay(self, "eager"), _LibraryWay(self, "graph")]

    def close(self) -> None:
        """Drop the graph and arrays (CuPy frees them when the last reference goes)."""
        self.synchronize()
        self._graph = None
        self.steps = ()
        self.x = self.y = None
        self.outs = []


class TorchChain:
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

    def _iteration(self) -> None:
        for f, a, b, out in self.steps:
            f(a, b, out=out)

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
        _check_iters(iters)
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

    def ways(self) -> list[Way]:
        return [_LibraryWay(self, "eager"), _LibraryWay(self, "graph")]

    def close(self) -> None:
        self.synchronize()
        self._graph = None
        self.steps = ()
        self.x = self.y = None
        self.outs = []


# ------------------------------------------------------------------------------------- optional libraries

def load_cupy(device_index: int = 0):
    """(cupy module, "") when CuPy can run on the device, else (None, why not)."""
    try:
        import cupy
    except ModuleNotFoundError as e:
        if e.name == "cupy":
            return None, "not installed"
        return None, f"import failed: {_short(e)}"
    except Exception as e:  # a broken install (missing CUDA libraries) raises ImportError or others at import
        return None, f"import failed: {_short(e)}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return None, f"no CUDA in cupy ({_short(e)})"
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
        return None, f"import failed: {_short(e)}"
    except Exception as e:
        return None, f"import failed: {_short(e)}"
    try:
        if not torch.cuda.is_available():
            return None, "no CUDA in torch"
        count = torch.cuda.device_count()
    except Exception as e:
        return None, f"no CUDA in torch ({_short(e)})"
    if device_index >= count:
        return None, f"torch sees {count} CUDA device(s), not device {device_index}"
    return torch, ""


def _short(e: BaseException, limit: int = 160) -> str:
    text = f"{type(e).__name__}: {e}".replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ------------------------------------------------------------------------------------- device copy roof

def copy_bandwidth(device, nbytes: int = DEFAULT_COPY_BYTES, samples: int = 5,
                   copies: int = COPIES_PER_SAMPLE) -> CopyBandwidth:
    """Device-to-device copy bandwidth of ``device``: ``copies`` back-to-back ``cuMemcpyDtoDAsync`` of ``nbytes``
    per sample, timed with events; GB/s counts bytes read + written (2 x nbytes per copy)."""
    with _CopyProbe(device, nbytes, copies) as probe:
        return probe.summary([probe.sample() for _ in range(samples)])


class _CopyProbe:
    """Two buffers, a stream and two events for timing device copies; sampled between the chain's ways."""

    def __init__(self, device, nbytes: int, copies: int = COPIES_PER_SAMPLE):
        free, _ = device.memory_info()
        # a quarter of what is free at most, so the probe never starves the chain's own buffers
        nbytes = int(min(nbytes, free // 4)) // 16 * 16
        if nbytes < 16:
            raise InvalidArgumentError("not enough free device memory to measure the copy bandwidth")
        self.nbytes, self.copies = nbytes, copies
        self._owned = []
        try:
            self.src = self._keep(device.array(nbytes // 4))
            self.dst = self._keep(device.array(nbytes // 4))
            self.stream = self._keep(device.create_stream())
            self.start = self._keep(device.create_event())
            self.end = self._keep(device.create_event())
            self.src.poison()  # defined contents; what is copied does not matter, that it is memory does
            self._fn = driver_fn("cuMemcpyDtoDAsync")
            self._copy(2)  # warm-up
            self.stream.synchronize()
        except BaseException:
            self.close()
            raise

    def _keep(self, r):
        self._owned.append(r)
        return r

    def _copy(self, k: int) -> None:
        fn, d, s, nb, st = self._fn, self.dst.handle, self.src.handle, self.nbytes, self.stream.handle
        for _ in range(k):
            r = fn(d, s, nb, st)
            if r[0]:
                check(r, "cuMemcpyDtoDAsync")

    def sample(self) -> float:
        """GB/s of one sample (bytes read + written / device time)."""
        self.start.record(self.stream)
        self._copy(self.copies)
        self.end.record(self.stream)
        self.end.synchronize()
        seconds = self.start.elapsed_ms(self.end) / 1e3
        return 2 * self.nbytes * self.copies / seconds / 1e9

    def summary(self, samples) -> CopyBandwidth:
        return CopyBandwidth(self.nbytes, self.copies, summarize(samples, unit="GB/s", clock=COPY_CLOCK))

    def close(self) -> None:
        for r in reversed(self._owned):
            r.close()
        self._owned = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------------------------- comparison

def _sizes(size) -> tuple[int, ...]:
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        sizes = (validate_size(size),)
    else:
        sizes = tuple(validate_size(s) for s in size)
    if not sizes:
        raise InvalidArgumentError("give at least one size")
    return tuple(dict.fromkeys(sizes))


def compare(size=DEFAULT_SIZES, iters: int = 5000, ops=DEFAULT_OPS, repeats: int = 5, device: int = 0, *,
            scalar: float = 2.0, seed: int | None = None, libraries: Sequence[str] = LIBRARIES,
            copy_bytes: int = DEFAULT_COPY_BYTES, progress: Callable[[str], None] | None = None) -> CompareResult:
    """Time the chain in cugraphlab (eager, graph, fused), CuPy (eager, graph) and PyTorch (eager, graph).

    ``size`` is one element count or a sequence of them (each size is its own interleaved run). Every repeat, for
    each way in turn: the same fresh random inputs, poisoned outputs, an untimed lead-in, ``iters`` timed
    iterations, a bit-exact comparison with NumPy; one device-copy sample closes each repeat. Libraries that cannot
    run give rows with a note instead of figures. ``libraries`` picks a subset of ``LIBRARIES``.
    """
    from ..chain import Chain
    from ..driver import Device
    from ..environment import collect

    sizes = _sizes(size)
    ops = parse_ops(ops)
    _check_iters(iters)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InvalidArgumentError(f"repeats must be an integer >= 1, got {repeats!r}")
    scalar = float(scalar)
    if not math.isfinite(float(np.float32(scalar))):
        raise InvalidArgumentError(f"scalar must be a finite float32, got {scalar!r}")
    libraries = tuple(dict.fromkeys(libraries))
    unknown = [lib for lib in libraries if lib not in LIBRARIES]
    if unknown or not libraries:
        raise InvalidArgumentError(f"unknown library {unknown[0] if unknown else '(none)'!r}; "
                                   f"known: {', '.join(LIBRARIES)}")
    say = progress or (lambda _msg: None)
    rng = np.random.default_rng(seed)
    warm = min(iters, 200)

    with Device(device) as dev:
        env = collect(dev)
        modules, why_not = {}, {}
        for lib, loader in (("cupy", load_cupy), ("torch", load_torch)):
            if lib in libraries:
                mod, why = loader(device)
                if mod is None:
                    why_not[lib] = why
                else:
                    modules[lib] = mod
            else:
                why_not[lib] = "not asked for"
        dev.make_current()  # loading CuPy/PyTorch may have touched the current context; ours is the same primary one
        env["baselines"] = _baseline_versions(modules, why_not)

        rows: list[CompareRow] = []
        copy_samples: list[float] = []
        with _CopyProbe(dev, copy_bytes) as probe:
            for n in sizes:
                rows.extend(_compare_size(dev, Chain, n, iters, ops, scalar, repeats, warm, rng, libraries,
                                          modules, why_not, probe, copy_samples, say))
            copy = probe.summary(copy_samples)
        config = {"sizes": list(sizes), "iters": iters, "ops": list(ops), "scalar": scalar, "repeats": repeats,
                  "device": device, "libraries": list(libraries), "warmup_iters": warm,
                  "chain": " -> ".join(f"mul {scalar:g}" if o == "mul" else o for o in ops)}
        return CompareResult(config, rows, env, copy_gbps=copy.gbps.median, copy=copy.to_dict())


def _baseline_versions(modules: dict, why_not: dict) -> dict:
    out = {}
    cp = modules.get("cupy")
    if cp is not None:
        try:
            rt = cp.cuda.runtime.runtimeGetVersion()
            rt_text = f"{rt // 1000}.{(rt % 1000) // 10}"
        except Exception:
            rt_text = None
        out["cupy"] = {"version": cp.__version__, "cuda_runtime": rt_text}
    else:
        out["cupy"] = {"version": None, "note": why_not.get("cupy")}
    torch = modules.get("torch")
    if torch is not None:
        out["torch"] = {"version": str(torch.__version__), "cuda": getattr(torch.version, "cuda", None)}
    else:
        out["torch"] = {"version": None, "note": why_not.get("torch")}
    return out


def _compare_size(dev, Chain, n, iters, ops, scalar, repeats, warm, rng, libraries, modules, why_not, probe,
                  copy_samples, say) -> list[CompareRow]:
    """Build every way for size ``n``, warm them up, time them interleaved, and return their rows."""
    chain = start = end = None
    owners, ways, failed = [], [], {}
    try:
        if "cugraphlab" in libraries:
            chain = Chain(dev, ops, n, scalar)
            start, end = dev.create_event(), dev.create_event()
            ways += [CugraphlabWay(chain, m, start, end) for m in ("eager", "graph", "fused")]
        for lib, cls in (("cupy", CupyChain), ("torch", TorchChain)):
            mod = modules.get(lib)
            if mod is None:
                continue
            try:
                owner = cls(mod, dev.ordinal, ops, n, scalar)
                owners.append(owner)
                lib_ways = owner.ways()
                for w in lib_ways:  # warm-up: kernel compilation, graph capture, clocks up
                    w.run(warm)
                owner.synchronize()
                ways += lib_ways
            except Exception as e:  # an optional library failing must not sink the comparison
                failed[lib] = f"failed: {_short(e)}"
            finally:
                dev.make_current()
        for w in ways:
            if w.library == "cugraphlab":
                w.run(warm)
                w.synchronize()

        samples = {w.label: ([], []) for w in ways}
        bad = {w.label: 0 for w in ways}
        for r in range(repeats):
            x = rng.standard_normal(n, dtype=np.float32)
            y = rng.standard_normal(n, dtype=np.float32)
            expected = reference(ops, x, y, scalar)
            for w in ways:
                w.set_inputs(x, y)
                w.poison()
                w.run(warm)  # untimed lead-in: the GPU's clocks settle at this way's load before timing
                wall, dev_us = w.timed(iters)
                samples[w.label][0].append(wall)
                samples[w.label][1].append(dev_us)
                bad[w.label] += compare_bits(w.label, w.result(), expected).mismatches
                say(f"size {n:,} repeat {r + 1}/{repeats} {w.label}: {wall:.2f} us/iter")
            copy_samples.append(probe.sample())

        rows = []
        measured = {w.label: w for w in ways}
        for lib, mode in WAYS:
            if lib not in libraries:
                continue
            label = f"{lib} {mode}"
            w = measured.get(label)
            if w is None:
                rows.append(CompareRow(lib, mode, n, iters, len(ops) if mode != "fused" else 1,
                                       note=failed.get(lib) or why_not.get(lib) or "not run"))
                continue
            ws = summarize(samples[label][0], unit="us", clock=WALL_CLOCK)
            ds = summarize(samples[label][1], unit="us", clock=DEVICE_CLOCK)
            rows.append(CompareRow(lib, mode, n, iters, w.kernels_per_iter, ws.median, ws.p5, ws.p95, ds.median,
                                   ds.p5, ds.p95, bad[label] == 0, bad[label], version=w.version))
        base = next((r for r in rows if (r.library, r.mode) == ("cugraphlab", "eager") and r.measured), None)
        if base is not None:
            for row in rows:
                if row.measured:
                    row.ratio_vs_cugraphlab_eager = row.us_per_iter / base.us_per_iter
        return rows
    finally:
        for owner in owners:
            try:
                owner.close()
            except Exception:
                pass
        for r in (end, start, chain):
            if r is not None:
                r.close()
        dev.make_current()
