"""nvbench / cuda-bench result files as nvbench writes them (JSON file version 1; ``--jsonbin``: the raw cold GPU
times beside it, little-endian float32 seconds in ``<json>-bin/N.bin``), for tests without a GPU or cuda-bench."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

DEVICE = {"id": 0, "name": "NVIDIA H200", "sm_version": 900, "ptx_version": 900, "sm_default_clock_rate": 1980000000,
          "number_of_sms": 132, "global_memory_size": 150 << 30, "l2_cache_size": 60 << 20, "ecc_state": True}


def _value(name, kind, v):
    return {"name": name, "type": kind, "value": str(v)}


def _summary(tag, *data, **extra):
    out = {"tag": tag, **extra}
    if data:
        out["data"] = list(data)
    return out


def state(name: str, cold_s, batch_s: float | None, *, sample_file: str | None = None, axes=None) -> dict:
    """One state: cold GPU samples (seconds) summarized as nvbench does, the batch mean, the sample file's name."""
    cold = np.asarray(cold_s, dtype=float)
    summaries = [
        _summary("nv/cold/sample_size", _value("value", "int64", cold.size), name="Samples", hint="sample_size"),
        _summary("nv/cold/time/gpu/mean", _value("value", "float64", float(cold.mean())), name="GPU Time",
                 hint="duration"),
        _summary("nv/cold/time/gpu/stdev/relative",
                 _value("value", "float64", float(cold.std(ddof=1) / cold.mean())), name="Noise",
                 hint="percentage"),
    ]
    if sample_file is not None:
        summaries.append(_summary("nv/json/bin:nv/cold/sample_times", _value("filename", "string", sample_file),
                                  _value("size", "int64", cold.size), name="Samples Times File",
                                  hint="file/sample_times"))
    if batch_s is not None:
        summaries += [_summary("nv/batch/sample_size", _value("value", "int64", 1000)),
                      _summary("nv/batch/time/gpu/mean", _value("value", "float64", batch_s), name="Batch GPU")]
    return {"name": name, "device": 0, "type_config_index": 0, "axis_values": axes or [], "summaries": summaries,
            "is_skipped": False, "min_samples": 10, "max_noise": 0.005, "timeout": 15.0}


def write_nvbench_json(path, benchmarks: dict, *, bins: bool = True, recorded_as=None) -> Path:
    """``benchmarks``: name -> {state name: (cold GPU samples in s, batch mean in s or None)}. Writes ``path`` and,
    with ``bins``, ``<path>-bin/N.bin`` beside it; the JSON names each file ``recorded_as(N)`` (default: the path
    written, as nvbench does for ``--jsonbin PATH``; e.g. a relative name from the folder it ran in)."""
    path = Path(path)
    out = {"meta": {"argv": ["bench.py", "--jsonbin", str(path)],
                    "version": {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"},
                                "nvbench": {"major": 0, "minor": 3, "patch": 0, "string": "0.3.0"}}},
           "devices": [DEVICE], "benchmarks": []}
    n = 0
    for b_index, (bench, states) in enumerate(benchmarks.items()):
        entry = {"name": bench, "index": b_index, "devices": [0], "axes": [], "states": []}
        for sname, (cold, batch) in states.items():
            filename = None
            if bins:
                target = Path(f"{path}-bin") / f"{n}.bin"
                target.parent.mkdir(parents=True, exist_ok=True)
                np.asarray(cold, dtype="<f4").tofile(target)
                filename = recorded_as(n) if recorded_as else str(target)
                n += 1
            entry["states"].append(state(sname, cold, batch, sample_file=filename))
        out["benchmarks"].append(entry)
    path.write_text(json.dumps(out, indent=2))
    return path
