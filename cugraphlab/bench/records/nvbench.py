"""NVIDIA nvbench / cuda-bench JSON read as a record ``cugraphlab diff`` can judge.

nvbench (C++) and its Python bindings cuda-bench (``cuda.bench``) write one JSON file per run (``--json PATH``;
``--jsonbin PATH`` adds the raw samples). Its shape (JSON file version 1)::

    {"meta": {"argv": [...], "version": {"json": {"major": 1, ...}, "nvbench": {"string": "0.3.0", ...}}},
     "devices": [{"id": 0, "name": "NVIDIA H200", "sm_version": 900, "l2_cache_size": ..., ...}],
     "benchmarks": [{"name": "saxpy", "axes": [...], "states": [
         {"name": "Device=0 Elements=2^20", "device": 0, "is_skipped": false,
          "summaries": [{"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64",
                                                                   "value": "2.5e-06"}]}, ...]}]}]}

Every number is a string ("float64"/"int64" typed), times in seconds. The summaries of one state:

* ``nv/cold/...``: each sample one launch on its own: the L2 flushed (a memset of L2-size bytes), the stream held
  by nvbench's blocking kernel while the launch is queued, CUDA events around the launch alone (GPU time) and the
  host clock around the same (CPU time). ``nv/cold/time/gpu/mean`` and ``.../stdev/relative`` ("noise") are what
  ``nvbench-compare`` judges; with ``--jsonbin``, ``nv/json/bin:nv/cold/sample_times`` names a file of the raw GPU
  times (little-endian float32 seconds, ``size`` of them) beside the JSON (``<json>-bin/N.bin``).
* ``nv/batch/time/gpu/mean``: many launches queued back to back behind the blocking kernel, no flush (warm L2), CUDA
  events around the batch / launches: one figure, no samples.

``nvbench_record(root, json_path)`` gives the record dict: kind ``nvbench``, one samples row per state with raw
samples, ``"<benchmark> [<state>]: cold GPU"`` in µs (clock ``nvbench_cold_gpu``); a state without the sample file
keeps an empty row whose ``note`` says why; the summaries (cold GPU mean, noise, batch GPU mean, sample count) go to
``nvbench`` per row label, so that ``nvbench-compare``'s own verdict can be shown beside diff's. The environment is
the device's (name, compute capability from ``sm_version``), nvbench's version and the argv.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .record import RecordError

__all__ = ["NVBENCH_KIND", "NVBENCH_CLOCKS", "is_nvbench", "nvbench_record", "nvbench_compare_status",
           "COLD_GPU", "summary_value"]

NVBENCH_KIND = "nvbench"
COLD_GPU = "cold GPU"
NVBENCH_CLOCKS = {
    "nvbench_cold_gpu": ("nvbench cold GPU time: CUDA events around one launch, L2 flushed before it, the launch "
                         "queued behind nvbench's blocking kernel (no host launch cost inside)"),
    "nvbench_batch_gpu": ("nvbench batch GPU time: CUDA events around many launches queued back to back behind the "
                          "blocking kernel, warm L2, divided by the launches"),
}
_SAMPLE_TAG = "nv/json/bin:nv/cold/sample_times"


def is_nvbench(d: Any) -> bool:
    """Whether ``d`` (a JSON object) is an nvbench result file (``benchmarks`` and ``devices`` lists, no ``kind``)."""
    return (isinstance(d, Mapping) and "kind" not in d and isinstance(d.get("benchmarks"), list)
            and isinstance(d.get("devices"), list))


def summary_value(state: Mapping, tag: str) -> Any:
    """The ``value`` of summary ``tag`` of a state, converted by its type (None when absent or null)."""
    for s in state.get("summaries") or []:
        if isinstance(s, Mapping) and s.get("tag") == tag:
            data = {v.get("name"): v for v in s.get("data") or [] if isinstance(v, Mapping)}
            return _typed(data.get("value"))
    return None


def _typed(v: Mapping | None) -> Any:
    if v is None or v.get("value") is None:
        return None
    kind, raw = v.get("type"), v.get("value")
    try:
        if kind == "int64":
            return int(raw)
        if kind == "float64":
            return float(raw)
    except (TypeError, ValueError):
        return None
    return raw


def _summary_field(state: Mapping, tag: str, name: str) -> Any:
    for s in state.get("summaries") or []:
        if isinstance(s, Mapping) and s.get("tag") == tag:
            for v in s.get("data") or []:
                if isinstance(v, Mapping) and v.get("name") == name:
                    return _typed(v)
    return None


def _sample_file(filename: str, json_path: str | None) -> Path | None:
    """Where the sample file named in the JSON is: as written (absolute, or relative to the folder nvbench ran
    in), beside the JSON, or beside it under ``<json name>-bin/`` (the JSON moved with its folder)."""
    name = Path(filename)
    here = Path(json_path).resolve().parent if json_path else Path.cwd()
    candidates = [name] if name.is_absolute() else [here / name]
    if json_path and not name.is_absolute():
        parts = name.parts
        marker = Path(json_path).name + "-bin"
        if marker in parts:
            candidates.append(here.joinpath(*parts[parts.index(marker):]))
        candidates.append(Path.cwd() / name)
    for c in candidates:
        if c.is_file():
            return c
    return None


def _samples(state: Mapping, json_path: str | None) -> tuple[list[float], str]:
    """The raw cold GPU times of a state in µs, or [] and why not."""
    filename = _summary_field(state, _SAMPLE_TAG, "filename")
    size = _summary_field(state, _SAMPLE_TAG, "size")
    if not filename:
        return [], "nvbench wrote no raw samples (run it with --jsonbin PATH instead of --json PATH)"
    path = _sample_file(str(filename), json_path)
    if path is None:
        return [], f"nvbench's sample file {filename} is not there (keep the <json>-bin folder beside the JSON)"
    values = np.fromfile(path, dtype="<f4").astype(float)
    if size is not None and values.size != size:
        return [], f"nvbench's sample file {path.name} holds {values.size} values, the JSON says {size}"
    return [float(v) * 1e6 for v in values], ""


def _environment(root: Mapping) -> dict:
    devices = [d for d in root.get("devices") or [] if isinstance(d, Mapping)]
    meta = root.get("meta") if isinstance(root.get("meta"), Mapping) else {}
    version = (meta.get("version") or {}) if isinstance(meta.get("version"), Mapping) else {}
    nvb = version.get("nvbench") if isinstance(version.get("nvbench"), Mapping) else {}
    env: dict[str, Any] = {"packages": {"nvbench": nvb.get("string")}, "argv": meta.get("argv")}
    if devices:
        d0 = devices[0]
        sm = d0.get("sm_version")
        env["gpu"] = {"name": d0.get("name"), "sm_count": d0.get("number_of_sms"),
                      "compute_capability": f"{sm // 100}.{sm % 100 // 10}" if isinstance(sm, int) else None,
                      "memory_bytes": d0.get("global_memory_size"), "l2_bytes": d0.get("l2_cache_size")}
    env["devices"] = devices
    return env


def nvbench_record(root: Any, json_path: str | os.PathLike | None = None) -> dict:
    """The record dict of an nvbench JSON object (module docstring); RecordError (one line) when it is not one or
    of a JSON file version this code does not read. ``json_path``: the file it came from (to find the samples)."""
    name = os.fspath(json_path) if json_path is not None else "nvbench JSON"
    if not is_nvbench(root):
        raise RecordError(f"{name} is not an nvbench JSON file (no 'benchmarks' and 'devices' lists)")
    meta = root.get("meta") if isinstance(root.get("meta"), Mapping) else {}
    jv = ((meta.get("version") or {}).get("json") or {}) if isinstance(meta.get("version"), Mapping) else {}
    major = jv.get("major", 1)
    if major != 1:
        raise RecordError(f"{name} is nvbench JSON file version {jv.get('string', major)}; this cugraphlab reads 1.x")
    samples: dict[str, dict] = {}
    summaries: dict[str, dict] = {}
    path = os.fspath(json_path) if json_path is not None else None
    for bench in root["benchmarks"]:
        if not isinstance(bench, Mapping):
            continue
        for state in bench.get("states") or []:
            if not isinstance(state, Mapping) or state.get("is_skipped"):
                continue
            label = f"{bench.get('name')} [{state.get('name')}]: {COLD_GPU}"
            values, why = _samples(state, path)
            entry: dict[str, Any] = {"unit": "us", "values": values, "clock": "nvbench_cold_gpu"}
            if why:
                entry["note"] = why
            samples[label] = entry
            mean = summary_value(state, "nv/cold/time/gpu/mean")
            batch = summary_value(state, "nv/batch/time/gpu/mean")
            summaries[label] = {
                "cold_gpu_mean_us": mean * 1e6 if isinstance(mean, float) else None,
                "cold_gpu_noise": summary_value(state, "nv/cold/time/gpu/stdev/relative"),
                "cold_samples": summary_value(state, "nv/cold/sample_size"),
                "batch_gpu_mean_us": batch * 1e6 if isinstance(batch, float) else None,
                "batch_samples": summary_value(state, "nv/batch/sample_size"),
            }
    return {"kind": NVBENCH_KIND, "schema": 1, "config": {}, "env": _environment(root),
            "clocks": dict(NVBENCH_CLOCKS), "samples": samples, "nvbench": summaries}


def nvbench_compare_status(ref: Mapping | None, cmp: Mapping | None) -> str | None:
    """What ``nvbench-compare`` (cuda-bench's nvbench_compare.py) says of one state: SAME when the means' relative
    difference is at most the smaller relative noise, else FAST or SLOW; ``????`` when neither has a noise figure.
    ``ref``/``cmp``: the ``nvbench`` summaries of a row. None when a mean is missing."""
    if not ref or not cmp:
        return None
    a, b = ref.get("cold_gpu_mean_us"), cmp.get("cold_gpu_mean_us")
    if not (isinstance(a, float) and isinstance(b, float)) or a <= 0:
        return None
    noises = [n for n in (ref.get("cold_gpu_noise"), cmp.get("cold_gpu_noise"))
              if isinstance(n, float) and math.isfinite(n) and n > 0]
    frac = (b - a) / a
    if not noises:
        return "????"
    if abs(frac) <= min(noises):
        return f"SAME ({frac * 100:+.2f}%, noise {min(noises) * 100:.2f}%)"
    return f"{'FAST' if frac < 0 else 'SLOW'} ({frac * 100:+.2f}%, noise {min(noises) * 100:.2f}%)"
