#!/usr/bin/env bash
# Issue 25 (measure, CLI, pytest plugin): the H200 phase in one device call, about 4 minutes.
# Run from the repository root, with cugraphlab installed ([cu13,test] and CuPy):
#
#     bash benchmarks/measure_h200.sh OUT_DIR
#
# Writes into OUT_DIR: measure_tests.log (the GPU and CPU tests of measure, the CLI and the plugin),
# measure_saxpy_2^20.log/.json and measure_saxpy_2^10.log/.json (a user's saxpy.cu from the command line, checked),
# measure_cupy.log/.json (a user's CuPy callable from the command line in 4 processes, checked),
# measure_overhead.log/.json (what measure itself costs, paired), plugin/ and plugin_false_alarms.log (the plugin's
# false alarms and its detection of a 1 µs slowdown). Each step runs even when one before it failed; the exit
# code is the number of steps that failed.
set -u
OUT=${1:?usage: bash benchmarks/measure_h200.sh OUT_DIR}
PY=${PYTHON:-python}
DEMO=benchmarks/measure_demo
mkdir -p "$OUT"
failed=0
step() {  # step NAME COMMAND...: run, tee to OUT/NAME.log, count a failure
    local name=$1; shift
    echo "=== $name: $*" | tee "$OUT/$name.log"
    "$@" 2>&1 | tee -a "$OUT/$name.log"
    local rc=${PIPESTATUS[0]}
    echo "=== $name: exit $rc" | tee -a "$OUT/$name.log"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
step measure_tests "$PY" -m pytest -q -p no:cacheprovider tests/bench/test_measure_work_gpu.py \
    tests/bench/test_measure_work_cpu.py tests/bench/test_measure_pool_cpu.py tests/cli/test_measure_cli_cpu.py \
    tests/package/test_pytest_plugin_cpu.py tests/studies/test_plugin_false_alarms_cpu.py
for size in 2^20 2^10; do
    step "measure_saxpy_$size" "$PY" -m cugraphlab measure "$DEMO/saxpy.cu" --kernel saxpy --size "$size" \
        --args out,x,y,2.0,n --check "$DEMO/saxpy_check.py:check" --json "$OUT/measure_saxpy_$size.json"
done
step measure_cupy "$PY" -m cugraphlab measure "$DEMO/cupy_saxpy.py:step" --setup make --prepare refill \
    --check verify --stream cupy --processes 4 --json "$OUT/measure_cupy.json"
step measure_self_diff "$PY" -m cugraphlab diff "$OUT/measure_saxpy_2^20.json" "$OUT/measure_saxpy_2^20.json"
step measure_overhead "$PY" benchmarks/measure_overhead.py --json "$OUT/measure_overhead.json"
step plugin_false_alarms "$PY" benchmarks/plugin_false_alarms.py "$OUT/plugin"
echo "steps failed: $failed"
exit "$failed"
