"""The capture doctor's field gallery on the H200: every case (a mistake from a public thread, graphs.field_gallery)
and its fixed twin, the replay hazards and the clean programs, each script in a process of its own under the doctor
(``cugraphlab doctor --gallery field`` does the same), with the counts the README quotes.

Prints the gallery's table, the output of every run that missed, the replay watch's site tables, the clean set and
one last line: ``doctor_field: caught X/Y, fixes that work F/Y, crashes C, hangs H, skipped S; replay hazards
caught R/RR; clean programs with findings K of N``. Exit 0 when the record is ok (graphs.bench.doctor
DoctorResult.field_ok), else 1.

Usage: python benchmarks/doctor_field.py OUT.json [--workers 6] [--timeout 90]
"""
from __future__ import annotations

import argparse
import sys
import time

from cugraphlab.bench.doctor import measure_doctor
from cugraphlab.core.files import write_json
from cugraphlab.report.doctor import field_counts, render_doctor


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--timeout", type=float, default=90.0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    record = measure_doctor(gallery="field", field_timeout=a.timeout, field_workers=a.workers)
    write_json(a.out, record.to_dict())
    print(render_doctor(record))
    n, r = field_counts(record.field_cases), field_counts(record.replay)
    clean_ran = [c for c in record.clean if not c["skipped"]]
    twins = [f for f in record.field_cases if not f["skipped"]]
    dirty = sum(1 for c in clean_ran if c["findings"]) + sum(1 for f in twins if not f["fix_works"])
    print(f"\ndoctor_field: caught {n['caught']}/{n['run']}, fixes that work {n['fix_works']}/{n['run']}, "
          f"crashes {n['crashes'] + r['crashes']}, hangs {n['hangs'] + r['hangs']}, skipped {n['skipped']}; "
          f"replay hazards caught {r['caught']}/{r['run']} (fix clean {r['fix_works']}/{r['run']}); "
          f"clean programs with findings or failures {dirty} of {len(clean_ran) + len(twins)} "
          f"({time.perf_counter() - t0:.0f} s)")
    return 0 if record.ok else 1


if __name__ == "__main__":
    sys.exit(main())
