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
from dataclasses import asdict, dataclass, field, fields
from typing import Callable, Sequence

import numpy as np

from ..core.errors import InvalidArgumentError, positive_int
from ..core.memory import validate_size
from ..experiment.ops import DEFAULT_OPS, compare_bits, parse_ops, reference
from .copy_roof import COPY_CLOCK, DEFAULT_COPY_BYTES, CopyBandwidth, CopyProbe, copy_bandwidth
from .stats import summarize
from .ways import CugraphlabWay, CupyChain, TorchChain, Way, load_cupy, load_torch, short_error

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


# ------------------------------------------------------------------------------------------- the ways to time



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
    from ..core.device import Device
    from ..experiment.chain import Chain
    from .environment import collect

    sizes = _sizes(size)
    ops = parse_ops(ops)
    positive_int("iterations", iters)
    positive_int("repeats", repeats)
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
        with CopyProbe(dev, copy_bytes) as probe:
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
                failed[lib] = f"failed: {short_error(e)}"
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
