#!/usr/bin/env bash
# This round's H200 runs (one call each; the lent machine allows 10 minutes per call):
#   bash benchmarks/h200_round5.sh probe OUT   cu13: GPU tests; the conditional command's pieces one by one under
#                                              compute-sanitizer memcheck (benchmarks/conditional_sanitize_probe.py)
#   bash benchmarks/h200_round5.sh a OUT       cu13: GPU tests; floor studies, the floor table first in a fresh
#                                              process, exec update (native ways)
#   bash benchmarks/h200_round5.sh b OUT       cu13: WHILE bodies (folded, PDL, every K), device loops, SWITCH; the
#                                              sanitizers over conditional, devlaunch and switch
#   bash benchmarks/h200_round5.sh c OUT       cu13: GPU tests at the final commit; memcheck over devlaunch (its
#                                              warm-up now waits per loop); racecheck over every node lesson
#   bash benchmarks/h200_round5.sh cu12 OUT    cuda-bindings 12.9 with NVRTC 12.9 (.carry/cu12): info, GPU tests
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
elif [ "$phase" = a ]; then
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  t 170 python3 -X faulthandler benchmarks/floor_studies.py "$r/floor_studies" > "$r/floor_studies.out" 2>&1
  t 90 python3 -X faulthandler benchmarks/floor.py --first graphs "$r/floor_first.json" > "$r/floor_first.log" 2>&1
  t 90 python3 -X faulthandler benchmarks/exec_update.py "$r/exec_update" > "$r/exec_update.out" 2>&1
elif [ "$phase" = b ]; then
  t 120 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests/experiment/test_gpu_switch.py \
    tests/experiment/test_gpu_switch_sweep.py > "$r/gpu_tests_switch.log" 2>&1
  tail -1 "$r/gpu_tests_switch.log"
  t 130 python3 -X faulthandler benchmarks/while_fold.py "$r/while_fold" > "$r/while_fold.out" 2>&1
  t 150 python3 -X faulthandler benchmarks/devlaunch.py "$r/devlaunch" > "$r/devlaunch.out" 2>&1
  t 130 python3 -X faulthandler benchmarks/switch.py "$r/switch" > "$r/switch.out" 2>&1
  mkdir -p "$r/sanitizer"
  san conditional_cmd $cgl conditional --size 4096 --iterations 20 --repeats 1 --pdl --decide-every 10
  san while_pdl python3 benchmarks/while_sanitize_probe.py pdl 1000003 30
  san while_pdl_every python3 benchmarks/while_sanitize_probe.py pdl 4096 30 10
  san switch $cgl switch --size 4096 --iters 20 --repeats 6 --no-sweep --holding-batch 4 --holding-repeats 2
  san devlaunch $cgl devlaunch --size 4096 --iterations 50 --repeats 1
  timeout 150 compute-sanitizer --tool racecheck $cgl conditional --size 4096 --iterations 10 --repeats 1 --pdl \
    > "$r/sanitizer/racecheck_conditional.log" 2>&1
  echo "racecheck conditional -> $? ($(grep -h 'SUMMARY' "$r/sanitizer/racecheck_conditional.log" | tail -1))" >> "$r/sanitizer/SUMMARY.txt"
  for q in seq:while,while:5 seq:while,while:8 seq:while,while:20 seq:fold,fold:20 seq:while,fold:20; do
    san "probe_${q//[:,]/_}" python3 benchmarks/conditional_sanitize_probe.py "${q%:*}" 4096 "${q##*:}"; done
  san probe_measure python3 benchmarks/conditional_sanitize_probe.py measure
  cat "$r/sanitizer/SUMMARY.txt"
fi
if [ "$phase" = c ]; then
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -1 "$out/gpu_tests.log"
  mkdir -p "$r/sanitizer"
  san devlaunch $cgl devlaunch --size 4096 --iterations 50 --repeats 1
  rc() {  # rc NAME ARGS...: racecheck over one command
    local name=$1; shift
    timeout 120 compute-sanitizer --tool racecheck "$@" > "$r/sanitizer/racecheck_$name.log" 2>&1
    echo "racecheck $name -> $? ($(grep -h 'SUMMARY' "$r/sanitizer/racecheck_$name.log" | tail -1))" >> "$r/sanitizer/SUMMARY.txt"
  }
  rc memnodes $cgl memnodes --size 4096 --iters 20 --repeats 1 --first-samples 1
  rc nodes $cgl nodes --size 4096 --repeats 1 --iters 20 --calls 50
  for m in host events child join memory; do rc "graph_$m" $cgl graph --mode $m --size 4096; done
  rc switch $cgl switch --size 4096 --iters 10 --repeats 6 --no-sweep --holding-batch 4 --holding-repeats 2
  cat "$r/sanitizer/SUMMARY.txt"
elif [ "$phase" = cu12 ]; then
  (
    python3 -m pip install -q --no-index --no-deps --target /tmp/cu12 .carry/cu12/cuda_bindings-12.9*.whl > "$r/pip_cu12.log" 2>&1
    tar -xJf .carry/cu12/nvrtc12.tar.xz -C /tmp/cu12
    export PYTHONPATH="/tmp/cu12:$PYTHONPATH" LD_PRELOAD=/tmp/cu12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
    export LD_LIBRARY_PATH="/tmp/cu12/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    t 60 $cgl info > "$r/info_cu12.log" 2>&1
    t 300 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests_cu12.log" 2>&1
    tail -1 "$out/gpu_tests_cu12.log"
  )
fi
# The lent machine returns at most 8 files: everything under OUT/res travels as one archive.
tar -czf "$out/res_$phase.tgz" -C "$out" res && rm -rf "$r"
