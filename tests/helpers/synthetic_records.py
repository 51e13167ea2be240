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
