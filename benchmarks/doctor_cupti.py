"""The capture doctor's CUPTI mode on the H200: where libcupti came from, the gallery with and without CUPTI (its
raw cases are named only with it), CuPy's synchronizing calls inside a cugraphlab capture, and the mode's overhead
(capture µs plain / explain=True / explain=True + cupti=True; replay µs of the three graphs).

1. ``graphs.doctor.cupti.cupti_library()``: the libcupti file loaded and how it was found (cuda.pathfinder).
2. ``bench.doctor.measure_doctor(foreign=True, cupti=False)`` then ``measure_doctor(cupti=True)``: each gallery case in its
   teaching mode, every case in every mode, the state checks, and the overhead (with CUPTI: three variants).
3. CuPy (when installed): ``cupy.cuda.Device().synchronize()`` and ``cupy.asnumpy`` on the capturing stream inside
   ``capture(s, explain=True, cupti=True)``: the call, class and frame the doctor names, with and without CUPTI.

Usage: python benchmarks/doctor_cupti.py OUT_DIR [--samples 15] [--device 0]
Writes OUT_DIR/doctor_cupti.json (both records and the CuPy rows) and OUT_DIR/doctor_cupti.log (what it prints).
Exit 0 when every case was named in both runs, the clean case stayed quiet and the state was restored; 2 when
cupti-python or libcupti is missing (one line).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.core.files import Tee


def cupy_rows(device: int) -> list[dict]:
    """CuPy's sync and host copy inside a cugraphlab capture, with and without CUPTI."""
    try:
        import cupy as cp
    except ImportError:
        return [{"case": "cupy", "error": "cupy not installed"}]
    from cugraphlab import Device
    from cugraphlab.graphs.capture import capture

    cases = {
        "cupy_device_synchronize": lambda s, x: cp.cuda.Device(device).synchronize(),
        "cupy_asnumpy_on_capture_stream": lambda s, x: _on(cp, s, lambda: cp.asnumpy(x)),
    }
    rows = []
    with Device(device) as dev, dev.load_kernels(names=["empty"]) as ks:
        x = cp.arange(1024, dtype=cp.float32)
        cp.cuda.Device(device).synchronize()
        for key, body in cases.items():
            for cupti in (False, True):
                with dev.create_stream() as s:
                    launch = ks["empty"].prepare((), (), ((1,), (1,)), s)
                    cap = capture(s, explain=True, cupti=cupti)
                    err = ""
                    try:
                        with cap:
                            launch()
                            body(s, x)
                    except Exception as e:
                        err = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                    if cap.graph is not None:
                        cap.graph.close()
                    d = cap.diagnosis
                    f = d.first
                    rows.append({"case": key, "cupti": cupti, "ok": d.ok, "kind": f.kind if f else None,
                                 "call": f.call if f else None, "result": f.result if f else None,
                                 "where": f.where if f else None, "raised": err,
                                 "cupti_log": d.cupti.get("log", [])[:6], "cupti_calls": d.cupti.get("calls", 0)})
                dev.synchronize()
    return rows


def _on(cp, s, fn):
    with cp.cuda.ExternalStream(int(s.handle)):
        return fn()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args(argv)
    require_gpu(__file__, a.device)  # before anything is created: no GPU is one line, exit 2
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "doctor_cupti.log", "w")
    tee = Tee(sys.stdout, log)
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.doctor.cupti import cupti_library

    try:
        lib = cupti_library()
    except UnsupportedError as e:
        print(f"doctor_cupti: {e}", file=tee)
        log.close()
        return 2
    from cugraphlab.bench.doctor import measure_doctor
    from cugraphlab.report.doctor import render_doctor
    from cugraphlab.report.doctor_cupti import render_doctor_cupti
    from cugraphlab.report.tables import format_table

    t0 = time.perf_counter()
    with redirect_stdout(tee):
        print(f"libcupti: {lib.describe()}")
        print(f"cupti-python module: {getattr(lib.module, '__file__', '?')}")
        plain = measure_doctor(a.device, samples=a.samples, foreign=True, cupti=False)
        print("\n=== gallery WITHOUT CUPTI (the raw cases can only be 'a call the doctor could not see') ===\n")
        print(render_doctor(plain))
        t1 = time.perf_counter()
        with_cupti = measure_doctor(a.device, samples=a.samples, cupti=True)
        print("\n=== gallery WITH CUPTI ===\n")
        print(render_doctor_cupti(with_cupti))
        t2 = time.perf_counter()
        rows = cupy_rows(a.device)
        print("\n=== CuPy inside a cugraphlab capture ===\n")
        print(format_table(["case", "cupti", "class", "call", "result", "where"],
                           [[r["case"], r.get("cupti", ""), r.get("kind"), r.get("call"),
                             (r.get("result") or "")[:40], r.get("where") or r.get("error", "")] for r in rows],
                           align="llllll"))
        for r in rows:
            if r.get("cupti") and r.get("cupti_log"):
                print(f"  {r['case']}: CUPTI log (outside cugraphlab): " + " | ".join(r["cupti_log"]))
        o = with_cupti.overhead
        print("\n=== summary ===")
        print(format_table(["", "value"], [
            ["named without CUPTI", f"{sum(c['named'] for c in plain.cases)}/{len(plain.cases)}"],
            ["named with CUPTI", f"{sum(c['named'] for c in with_cupti.cases)}/{len(with_cupti.cases)}"],
            ["false alarms (clean case, all modes)", f"{plain.false_alarms} / {with_cupti.false_alarms}"],
            ["capture us plain / explain / cupti (median)",
             f"{o['capture_plain']['median']:.1f} / {o['capture_explained']['median']:.1f} / "
             f"{o['capture_cupti']['median']:.1f}"],
            ["CUPTI us per call over explain=True", f"{o['cupti_us_per_call']:.2f}"],
            ["replay ratio cupti/plain", f"{o['cupti_replay_ratio']:.3f}"],
            ["seconds: plain gallery / cupti gallery / cupy", f"{t1 - t0:.1f} / {t2 - t1:.1f} / "
                                                             f"{time.perf_counter() - t2:.1f}"],
        ], align="ll"))
    (out / "doctor_cupti.json").write_text(json.dumps(
        {"libcupti": lib.describe(), "plain": plain.to_dict(), "cupti": with_cupti.to_dict(), "cupy": rows},
        indent=1, default=str))
    log.close()
    return 0 if plain.ok and with_cupti.ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
