#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck) over this round's new commands, at small sizes (API errors the lessons
# provoke on purpose, such as a refused instantiate, are not counted: --report-api-errors no), and the default scaling
# sweep timed. From the repo root with the package installed: bash benchmarks/sanitize_round3.sh OUT
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; mkdir -p "$out"; export PYTHONUNBUFFERED=1
cs() { local tool=$1 name=$2; shift 2
  timeout 55 compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 --report-api-errors no python3 -m cugraphlab "$@" \
    > "$out/sanitize_${tool}_${name}.log" 2>&1
  echo "$tool $name -> $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize_${tool}_${name}.log" | tail -1))"; }
cs memcheck nodes nodes --size 4096 --repeats 2 --iters 20 --calls 50
cs memcheck memnodes memnodes --size 4096 --iters 20 --repeats 2 --first-samples 2
cs memcheck switch switch --size 4096 --iters 20 --repeats 2
cs memcheck devlaunch devlaunch --size 1024 --iterations 100 --repeats 2
cs memcheck doctor doctor --gallery --no-overhead
cs racecheck switch switch --size 4096 --iters 10 --repeats 1
cs racecheck devlaunch devlaunch --size 1024 --iterations 50 --repeats 1
[ "${2:-}" = noscaling ] || ( time timeout 190 python3 -m cugraphlab scaling --json "$out/scaling_default.json" --plot "$out/scaling_default" \
    > "$out/scaling_default.log" 2>&1 ) 2> "$out/scaling_default.time"; echo "scaling default -> $? $(grep real "$out/scaling_default.time")"
