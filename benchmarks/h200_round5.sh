#!/usr/bin/env bash
# This round's H200 runs (one call each; the lent machine allows 10 minutes per call):
#   bash benchmarks/h200_round5.sh probe OUT   cu13: GPU tests; the conditional command's pieces one by one under
#                                              compute-sanitizer memcheck (benchmarks/conditional_sanitize_probe.py)
# From the repo root with the package installed (pip install -e .). Everything lands in OUT/res.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
phase=$1; out=$2; r="$out/res"; mkdir -p "$r"
t() { local s=$1; shift; timeout "$s" "$@"; echo "$* -> $?" >> "$r/steps.log"; }
cgl="python3 -m cugraphlab"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/gpu_$phase.txt" 2>&1
if [ -d .whl ]; then python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl > "$r/pip_site.log" 2>&1; fi
export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
san() {  # san NAME ARGS...: memcheck over one command, its log and exit code
  local name=$1; shift
  timeout 150 compute-sanitizer --tool memcheck --report-api-errors no "$@" > "$r/sanitizer/memcheck_$name.log" 2>&1
  echo "memcheck $name -> $? ($(grep -h 'ERROR SUMMARY' "$r/sanitizer/memcheck_$name.log" | tail -1))" >> "$r/sanitizer/SUMMARY.txt"
}
if [ "$phase" = probe ]; then
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  mkdir -p "$r/sanitizer"
  for s in all measure until host captured if1; do
    san "probe_$s" python3 benchmarks/conditional_sanitize_probe.py "$s"; done
  san conditional_cmd $cgl conditional --size 4096 --iterations 20 --repeats 1
  cat "$r/sanitizer/SUMMARY.txt"
fi
