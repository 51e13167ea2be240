"""What ``cugraphlab scale`` measures: its configuration, checked before any GPU work, and the list of points.

A point is a layout of launching threads: a tuple of processes, each a tuple naming the device every one of its
threads drives. ``((0, 0, 0, 0),)`` is four threads on GPU 0 in one process; ``((0, 1),)`` one thread per GPU in one
process; ``((0,), (1,))`` one process per GPU; ``((0, 0), (1, 1))`` two threads per GPU, a process per GPU.

Launch kinds: ``eager`` (one cuLaunchKernel per kernel), ``graph`` (one cuGraphLaunch per iteration of the work, of a
graph holding that iteration), ``graphK`` / ``graph50`` (one cuGraphLaunch per K iterations). The work is the empty
kernel (one block of 32 threads) or the 4-op chain (add, mul by 2.0, sub, relu) on ``size`` floats.
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass

from ...core import device as _device
from ...core.errors import InvalidArgumentError, positive_int

__all__ = ["ScaleConfig", "Point", "WORKS", "STREAM_MODES", "EVIDENCE_MODES", "parse_int_list", "parse_devices",
           "parse_launch_kinds", "kind_unroll", "make_config", "usable_cpus", "default_threads", "resolve_devices", "plan_points",
           "KERNELS_PER_ITER"]

WORKS = ("empty", "chain")
STREAM_MODES = ("per-thread", "shared")
EVIDENCE_MODES = ("auto", "all", "none")
KERNELS_PER_ITER = {"empty": 1, "chain": 4}
MAX_LAUNCHES = 10_000_000


@dataclass(frozen=True)
class ScaleConfig:
    """Everything a scale run needs. ``devices`` is None for "all" until resolve_devices() fills it in."""

    threads: tuple[int, ...] = (1, 2, 4, 8)
    devices: tuple[int, ...] | None = None
    gpus_axis: bool = True  # one thread per GPU, in one process (needs 2+ devices)
    processes: bool = True  # one process per GPU (needs 2+ devices)
    cross: bool = False  # T threads per GPU x one process per GPU, for each T > 1 in threads
    launches: int = 20_000  # work iterations per worker
    kinds: tuple[str, ...] = ("eager", "graph")
    unroll: int = 50  # K of graphK
    work: str = "empty"
    size: int = 1024
    stream: str = "per-thread"
    repeats: int = 3
    timeout_s: float = 180.0
    evidence: str = "auto"
    gil_seconds: float = 0.5  # per phase of the GIL probe; 0 turns it off
    seed: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Point:
    """One measured layout. ``layout``: per process, the device of each of its threads."""

    axis: str  # "threads", "gpus", "processes", "cross"
    label: str
    layout: tuple[tuple[int, ...], ...]
    evidence: bool = False

    @property
    def workers(self) -> int:
        return sum(len(p) for p in self.layout)

    @property
    def processes(self) -> int:
        return len(self.layout)

    @property
    def devices(self) -> tuple[int, ...]:
        return tuple(sorted({d for p in self.layout for d in p}))

    def to_dict(self) -> dict:
        return {"axis": self.axis, "label": self.label, "layout": [list(p) for p in self.layout],
                "workers": self.workers, "processes": self.processes, "devices": list(self.devices),
                "evidence": self.evidence}


def parse_int_list(name: str, text) -> tuple[int, ...]:
    """``"1,2,4,8"`` (or a sequence of ints) as a tuple of ints >= 1; InvalidArgumentError naming ``name``."""
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else list(text)
    if not parts or any(p == "" for p in parts):
        raise InvalidArgumentError(f"{name} must be a comma list of integers, got {text!r}", params=(name,))
    out = []
    for p in parts:
        try:
            v = int(p)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{name} must be a comma list of integers, got {text!r}",
                                       params=(name,)) from None
        if v < 1:
            raise InvalidArgumentError(f"{name}: {v} workers cannot launch anything (each must be >= 1)",
                                       params=(name,))
        out.append(v)
    return tuple(out)


def parse_devices(text) -> tuple[int, ...] | None:
    """``"all"`` -> None; ``"0,1"`` -> (0, 1) (distinct indices >= 0)."""
    if text is None or (isinstance(text, str) and text.strip().lower() == "all"):
        return None
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else list(text)
    try:
        devs = tuple(int(p) for p in parts)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"devices must be 'all' or device indices like 0,1, got {text!r}", params=("devices",)) from None
    if not devs or any(d < 0 for d in devs):
        raise InvalidArgumentError(f"devices must be 'all' or device indices >= 0, got {text!r}", params=("devices",))
    if len(set(devs)) != len(devs):
        raise InvalidArgumentError(f"devices lists a device twice: {text!r}", params=("devices",))
    return devs


def kind_unroll(kind: str) -> tuple[str, int]:
    """("eager", 1), ("graph", 1) or ("graph", K) for "graphK" already resolved to e.g. "graph50"."""
    if kind == "eager":
        return "eager", 1
    m = re.fullmatch(r"graph(\d*)", kind)
    if not m:
        raise InvalidArgumentError(f"unknown launch kind {kind!r}; kinds: eager, graph, graphK (e.g. graph50)")
    return "graph", int(m.group(1) or 1)


def parse_launch_kinds(text, unroll: int) -> tuple[str, ...]:
    """``"eager,graph,graphK"`` with --unroll K -> ("eager", "graph", "graphK" as "graph50"); order kept, no dups."""
    positive_int("unroll", unroll, maximum=10_000)
    parts = [p.strip().lower() for p in text.split(",")] if isinstance(text, str) else [str(p) for p in text]
    out: list[str] = []
    for p in parts:
        if p in ("graphk", "graph-k"):
            p = f"graph{unroll}"
        mode, k = kind_unroll(p)
        if mode == "graph" and k < 1:
            raise InvalidArgumentError(f"launch kind {p!r}: K must be >= 1")
        name = "eager" if mode == "eager" else ("graph" if k == 1 else f"graph{k}")
        if name not in out:
            out.append(name)
    if not out:
        raise InvalidArgumentError("launch needs at least one kind: eager, graph, graphK", params=("launch",))
    return tuple(out)


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, as taskset or a container sets it), not ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_threads(cores: int | None = None) -> tuple[int, ...]:
    """1, 2, 4, 8 cut to what this machine can run at once: 1 and the powers of two up to its usable CPUs."""
    cores = usable_cpus() if cores is None else cores
    return tuple(t for t in (1, 2, 4, 8) if t <= max(1, cores))


def make_config(*, threads=None, devices="all", gpus_axis=True, processes=True, cross=False,
                launches=20_000, launch="eager,graph", unroll=50, work="empty", size=1024, stream="per-thread",
                repeats=3, timeout_s=180.0, evidence="auto", gil_seconds=0.5, seed=None) -> ScaleConfig:
    """A checked ScaleConfig from user-level values; InvalidArgumentError on anything wrong. Touches no GPU."""
    cores = usable_cpus()
    if threads is None:  # the default fits the machine; only a value the user gave is refused
        threads_t = default_threads(cores)
    else:
        threads_t = parse_int_list("threads", threads)
        if max(threads_t) > cores:
            raise InvalidArgumentError(f"threads {max(threads_t)} is more than the {cores} CPU cores this process "
                                       f"may use", params=("threads",))
    if 1 not in threads_t:  # the one-worker baseline every speedup is measured against
        threads_t = (1,) + threads_t
    threads_t = tuple(sorted(set(threads_t)))
    kinds = parse_launch_kinds(launch, unroll)
    launches = positive_int("launches", launches, maximum=MAX_LAUNCHES)
    for kind in kinds:
        _, k = kind_unroll(kind)
        if launches % k:
            raise InvalidArgumentError(f"launches ({launches}) must be a multiple of K={k} for {kind}", params=("launches",))
    if work not in WORKS:
        raise InvalidArgumentError(f"unknown work {work!r}; choose {' or '.join(WORKS)}", params=("work",))
    if stream not in STREAM_MODES:
        raise InvalidArgumentError(f"unknown stream {stream!r}; choose {' or '.join(STREAM_MODES)}", params=("stream",))
    if evidence not in EVIDENCE_MODES:
        raise InvalidArgumentError(f"unknown evidence {evidence!r}; choose {', '.join(EVIDENCE_MODES)}", params=("evidence",))
    size = positive_int("size", size, maximum=1 << 28)
    repeats = positive_int("repeats", repeats, maximum=1000)
    for name, v in (("timeout_s", timeout_s), ("gil_seconds", gil_seconds)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (name == "timeout_s" and v == 0):
            raise InvalidArgumentError(f"{name} must be a number of seconds > 0, got {v!r}", params=(name,))
    return ScaleConfig(threads_t, parse_devices(devices), bool(gpus_axis), bool(processes), bool(cross),
                       launches, kinds, int(unroll), work, size, stream, repeats, float(timeout_s), evidence,
                       float(gil_seconds), seed)


def resolve_devices(config: ScaleConfig) -> ScaleConfig:
    """Check the devices against the driver (cuInit + cuDeviceGetCount, nothing else) and the CPU count against every
    point's workers; return the config with ``devices`` filled in. InvalidArgumentError on a missing device."""
    count = _device.device_count()
    if count < 1:
        raise InvalidArgumentError("the driver reports no CUDA device")
    devices = tuple(range(count)) if config.devices is None else config.devices
    missing = [d for d in devices if d >= count]
    if missing:
        have = ", ".join(str(i) for i in range(count))
        raise InvalidArgumentError(f"there is no CUDA device {missing[0]}: this machine has {count} (indices: {have})")
    resolved = ScaleConfig(**{**config.to_dict(), "devices": devices, "threads": config.threads,
                              "kinds": config.kinds})
    cores = usable_cpus()
    for point in plan_points(resolved):
        if point.workers > cores:
            raise InvalidArgumentError(f"{point.label}: {point.workers} launching threads is more than this "
                                       f"machine's {cores} CPU cores")
    return resolved


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def plan_points(config: ScaleConfig) -> list[Point]:
    """The points in the order they run: threads on the first device, then the multi-GPU axes."""
    if config.devices is None:
        raise InvalidArgumentError("resolve the devices first (resolve_devices)")
    devs = config.devices
    d0, multi = devs[0], len(devs) >= 2
    tmax = max(config.threads)
    auto = config.evidence == "auto"
    points = []
    for t in config.threads:
        ev = config.evidence == "all" or (auto and t in (1, tmax))
        points.append(Point("threads", f"{_plural(t, 'thread')}, GPU {d0}", ((d0,) * t,), ev))
    if multi and config.gpus_axis:
        points.append(Point("gpus", f"{len(devs)} GPUs, a thread each, one process", (tuple(devs),),
                            config.evidence != "none"))
    if multi and config.processes:
        points.append(Point("processes", f"{len(devs)} GPUs, a process each", tuple((d,) for d in devs),
                            config.evidence != "none"))
    if multi and config.cross:
        for t in config.threads:
            if t > 1:
                ev = config.evidence == "all" or (auto and t == tmax)
                points.append(Point("cross", f"{len(devs)} GPUs, a process each, {_plural(t, 'thread')} each",
                                    tuple((d,) * t for d in devs), ev))
    return points
