#!/usr/bin/env bash
# This round's H200 runs, in two calls of at most ~8 minutes each (the lent machine's limit is 10 per call).
#   bash benchmarks/h200_round3.sh a OUT   GPU tests, the lesson benchmarks, the launch-cost study, two quick compares
#   bash benchmarks/h200_round3.sh b OUT   two default compares back to back, and their diff
# From the repo root with the package installed (pip install -e .). Everything lands in OUT/res.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
phase=$1; out=$2; r="$out/res"; mkdir -p "$r"
t() { local s=$1; shift; timeout "$s" "$@"; echo "$* -> $?" >> "$r/steps.log"; }
cgl() { python3 -m cugraphlab "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/gpu_$phase.txt" 2>&1
if [ "$phase" = a ]; then
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  for s in nodes switch memnodes devlaunch; do
    t 90 python3 -X faulthandler "benchmarks/$s.py" "$r/$s.json" > "$r/$s.log" 2>&1; done
  [ -f benchmarks/floor.py ] && t 90 python3 benchmarks/floor.py "$r/floor.json" > "$r/floor.log" 2>&1
  [ -f benchmarks/doctor.py ] && t 90 python3 -X faulthandler benchmarks/doctor.py "$r/doctor.json" > "$r/doctor.log" 2>&1
  [ -f benchmarks/scaling.py ] && t 90 python3 benchmarks/scaling.py "$r/scaling.json" --quick > "$r/scaling.log" 2>&1
  t 200 python3 benchmarks/launch_modes.py "$r/launch_modes.json" > "$r/launch_modes.log" 2>&1
  for i in 1 2; do t 90 cgl compare --quick --quiet --json "$r/compare_quick_$i.json" > "$r/compare_quick_$i.log" 2>&1; done
  t 30 cgl diff "$r/compare_quick_1.json" "$r/compare_quick_2.json" --json "$r/diff_quick.json" > "$r/diff_quick.log" 2>&1
else
  for i in 1 2; do t 280 cgl compare --quiet --json "$r/compare_$i.json" --plot "$r/compare_$i" > "$r/compare_$i.log" 2>&1; done
  t 30 cgl diff "$r/compare_1.json" "$r/compare_2.json" --json "$r/diff_compare.json" --plot "$r/diff_compare" > "$r/diff_compare.log" 2>&1
fi
cat "$r/steps.log"
tar czf "$out/res_$phase.tgz" -C "$out" res
