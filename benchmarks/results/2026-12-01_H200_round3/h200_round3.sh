#!/usr/bin/env bash
# This round's H200 runs, in two calls of at most ~8 minutes each (the lent machine's limit is 10 per call).
#   bash benchmarks/h200_round3.sh a OUT   GPU tests, the lesson benchmarks, the floor, the doctor, scaling (quick)
#   bash benchmarks/h200_round3.sh b OUT   the launch-cost study, two quick compares back to back and their diff
#   bash benchmarks/h200_round3.sh c OUT   the notebooks, executed in place (needs nbclient/ipykernel importable)
# From the repo root with the package installed (pip install -e .). Everything lands in OUT/res.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
phase=$1; out=$2; r="$out/res"; mkdir -p "$r"
t() { local s=$1; shift; timeout "$s" "$@"; echo "$* -> $?" >> "$r/steps.log"; }
cgl="python3 -m cugraphlab"  # a variable, not a function: timeout runs it
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/gpu_$phase.txt" 2>&1
if [ "$phase" = a ]; then
  t 220 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  for s in nodes switch memnodes devlaunch; do
    t 60 python3 -X faulthandler "benchmarks/$s.py" "$r/$s.json" > "$r/$s.log" 2>&1; done
  t 90 python3 benchmarks/floor.py "$r/floor.json" > "$r/floor.log" 2>&1
  t 60 python3 -X faulthandler benchmarks/doctor.py "$r/doctor.json" > "$r/doctor.log" 2>&1
  t 45 python3 benchmarks/scaling.py "$r/scaling.json" --quick --csv "$r/scaling.csv" --plot "$r/scaling" > "$r/scaling.log" 2>&1
  for m in explicit forkjoin while switch; do t 30 $cgl graph --mode $m --size 4096 --draw "$r/draw_$m"; done > "$r/draw.log" 2>&1
elif [ "$phase" = b ]; then
  t 200 python3 benchmarks/launch_modes.py "$r/launch_modes.json" > "$r/launch_modes.log" 2>&1
  for i in 1 2; do t 90 $cgl compare --quick --quiet --json "$r/compare_quick_$i.json" --plot "$r/compare_quick_$i" > "$r/compare_quick_$i.log" 2>&1; done
  t 30 $cgl diff "$r/compare_quick_1.json" "$r/compare_quick_2.json" --json "$r/diff_quick.json" --plot "$r/diff_quick" > "$r/diff_quick.log" 2>&1
  for m in explicit forkjoin while switch; do t 30 $cgl graph --mode $m --size 4096 --draw "$r/draw_$m"; done > "$r/draw.log" 2>&1
elif [ "$phase" = c ]; then
  t 400 bash notebooks/run_all.sh "$r/notebooks_run_all.log" > /dev/null 2>&1
  mkdir -p "$r/nb"; cp notebooks/*.ipynb "$r/nb/"
fi
cat "$r/steps.log"
tar czf "$out/res_$phase.tgz" -C "$out" res
