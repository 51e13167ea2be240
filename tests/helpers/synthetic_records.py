"""Synthetic records for the diff tests: samples drawn from known distributions, an environment like
``bench.environment.collect`` writes, and the record dict as ``Record.to_dict`` gives it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from cugraphlab.bench.records.record import Record, clocks

KIND = "cugraphlab.test-probe"


@dataclass(kw_only=True)
class ProbeRecord(Record):
    KIND: ClassVar[str] = KIND


def environment(gpu="NVIDIA H200", release="580.159.04", bindings="13.3.0", commit="a" * 40, **packages) -> dict:
    pk = {"cugraphlab": "0.1.0", "python": "3.12.3", "cuda-bindings": bindings, "numpy": "2.1.3", "nvrtc": "13.0"}
    pk.update(packages)
    return {"timestamp": "2026-12-01T00:00:00+00:00", "host": "gpu-node", "platform": "Linux", "commit": commit,
            "packages": pk, "gpu": {"name": gpu, "ordinal": 0, "compute_capability": "9.0", "sm_count": 132,
                                    "memory_bytes": 1 << 37},
            "driver": {"cuda": "13.0", "release": release}}


def noisy(rng, center: float, n: int = 30, rel: float = 0.02) -> np.ndarray:
    """``n`` samples around ``center``, relative spread ``rel`` (normal), all positive."""
    return center * (1.0 + rel * rng.standard_normal(n))


def probe_record(rows: dict, env: dict | None = None, config: dict | None = None, kind_cls=ProbeRecord) -> dict:
    """A record dict whose samples are ``rows``: label -> (values, unit[, clock])."""
    rec = kind_cls(config=config if config is not None else {"launches": 2000},
                   env=env if env is not None else environment(), clocks=clocks("host_call", "device"))
    for label, spec in rows.items():
        values, unit, *clock = spec
        rec.keep_samples(label, values, unit, clock[0] if clock else "host_call")
    return rec.to_dict()


# ------------------------------------------------------------------------------------------ run records, modelled

#: µs per iteration on the H200 (README, 2^20 floats): host cost of one iteration's launches and the device's time.
RUN_MODES = {"eager": (4, 5.46, 21.83), "graph": (1, 2.6, 10.24), "fused": (0.02, 2.2, 2.27)}


def run_record(rng, *, delay_us: float = 0.0, repeats: int = 5, chunks: int = 10, iters: int = 5000,
               noise: float = 0.004, env: dict | None = None, config: dict | None = None) -> dict:
    """A ``cugraphlab run`` record as the chunked timed loops write it (``Timings.keep``), from a model of the H200:
    per iteration the host spends ``launches x (cost + delay_us)`` and the device its own time; a chunk's wall
    sample is the longer of the two (``timing.paced``), and the last chunk of a device-bound loop, which waits for
    the queue to drain, reads long; each value with ``noise``."""
    from cugraphlab.bench.run import RunResult

    rec = RunResult(config=config if config is not None else {
        "size": 1 << 20, "iters": iters, "ops": ["add", "mul", "sub", "relu"], "scalar": 2.0, "device": 0,
        "repeats": repeats, "unroll": 1, "chunks": chunks, "grid": 1024, "block": 256,
        "chain": "add -> mul 2 -> sub -> relu on 1,048,576 float32"},
        modes=[], env=env if env is not None else environment(), clocks=clocks("wall", "device"))
    for mode, (launches, cost, device_us) in RUN_MODES.items():
        host = launches * (cost + delay_us)
        per = max(host, device_us)
        wall, dev = [], []
        for _ in range(repeats):
            w = per * (1 + noise * rng.standard_normal(chunks))
            if host < device_us:  # device-bound: the host ran ahead; the last chunk waits for the queue to drain
                w[-1] = per * 1.9
            wall += list(w)
            dev += list(per * (1 + noise * rng.standard_normal(chunks)))
        rec.keep_samples(f"{mode}: wall", wall, clock="wall")
        rec.keep_samples(f"{mode}: device", dev, clock="device")
    return rec.to_dict()
