"""Follow-up of the launch-cost study (docs/studies/launch-cost-modes.md): which setting removes the slow mode?

Twelve fresh contexts per setting, each in a process of its own (settings read at context creation need that):
the default; CUDA_DEVICE_MAX_CONNECTIONS=1, 8 and 32; contexts made with cuCtxCreate and each scheduling flag. Per
context, the median host µs per cuLaunchKernel of ``add`` on 1,024 floats from Python (bare binding) and from C, two
streams each. Prints one line per setting (context medians sorted) and writes the raw grids as JSON.

    python3 benchmarks/studies/launch_modes/followup.py OUT.json      (repo root, package installed; about 2 minutes)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sys as _sys
import tempfile
from pathlib import Path
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

from studies.launch_modes.measure import summarize_grid

SETTINGS = [("default", {}, "primary"), ("MAX_CONNECTIONS=1", {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}, "primary"),
            ("MAX_CONNECTIONS=8", {"CUDA_DEVICE_MAX_CONNECTIONS": "8"}, "primary"),
            ("MAX_CONNECTIONS=32", {"CUDA_DEVICE_MAX_CONNECTIONS": "32"}, "primary"),
            ("created, spin/yield/blocking/auto", {}, "spin,yield,blocking_sync,created")]


def run(label, env, kinds, contexts, tmp) -> dict:
    out = Path(tmp) / f"{len(os.listdir(tmp))}.json"
    e = {**os.environ, **env}
    cmd = [sys.executable, "-m", "studies.launch_modes.measure", "--out", str(out), "--contexts", str(contexts),
           "--streams", "2", "--launches", "3000", "--repeats", "5", "--held", "256", "--kinds", kinds, "--quiet"]
    r = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=240)
    if r.returncode:
        return {"label": label, "error": r.stderr[-2000:]}
    return {"label": label, "env": env, "kinds": kinds, "grid": json.loads(out.read_text())}


def main() -> int:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, env, kinds in SETTINGS:
            contexts = 3 if "," in kinds else 12  # created: 4 kinds x 3
            results.append(run(label, env, kinds, contexts, tmp))
    Path(sys.argv[1]).write_text(json.dumps(results))
    for res in results:
        if "error" in res:
            print(f"{res['label']}: FAILED {res['error'][-300:]}")
            continue
        ctxs = res["grid"]["contexts"]
        for way in ("bindings", "c"):
            by_kind: dict = {}
            for ctx in ctxs:
                vals = [v for st in ctx["streams"] for v in st["ways"][way]["us"]]
                vals.sort()
                by_kind.setdefault(ctx["kind"], []).append(vals[len(vals) // 2])
            for kind, meds in by_kind.items():
                meds = sorted(meds)
                slow = sum(m > 1.15 * meds[0] for m in meds)
                print(f"{res['label']:<34} {kind:<14} {way:<8} contexts: " + " ".join(f"{m:.2f}" for m in meds)
                      + f"   slow (>15% over the fastest): {slow}/{len(meds)}")
        s = summarize_grid(res["grid"])
        print(f"{'':<34} spreads: " + json.dumps({k: v for k, v in s.items() if "spread" in k})[:200])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
