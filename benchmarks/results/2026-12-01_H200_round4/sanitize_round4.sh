#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck) over this round's new code at small sizes: the WHILE body with its decision
# folded into relu (conditional), the node lessons' graph modes, memory nodes with 10 iterations per graph, and the
# native launch path (its GPU test). API errors the lessons provoke on purpose are not counted (--report-api-errors
# no). From the repo root with the package installed: bash benchmarks/sanitize_round4.sh OUT
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; mkdir -p "$out"; export PYTHONUNBUFFERED=1
cs() { local tool=$1 name=$2; shift 2
  timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 --report-api-errors no "$@" \
    > "$out/sanitize_${tool}_${name}.log" 2>&1
  echo "$tool $name -> $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize_${tool}_${name}.log" | tail -1))"; }
cgl="python3 -m cugraphlab"
cs memcheck native_launch python3 -m pytest -q -m gpu -p no:cacheprovider tests/core/test_gpu_native_launch.py
cs memcheck conditional $cgl conditional --size 4096 --iterations 20 --repeats 1
cs racecheck conditional $cgl conditional --size 4096 --iterations 10 --repeats 1
cs memcheck memnodes $cgl memnodes --size 4096 --iters 20 --repeats 1 --first-samples 1
for m in host events child join memory; do cs memcheck "graph_$m" $cgl graph --mode $m --size 4096; done
