#!/usr/bin/env bash
# The H200 runs, one runner for every phase (a lent machine allows 10 minutes per call):
#
#     bash benchmarks/h200.sh PHASE[,PHASE...] OUT    run the phases in order, in one call
#     bash benchmarks/h200.sh --list                  the phases, one per line: name, then what it runs
#     bash benchmarks/h200.sh --dry-run PHASE OUT     print each step instead of running it (no GPU needed)
#
# From the repository root; the tree itself is put first on PYTHONPATH, so cugraphlab, its kernels and
# benchmarks/studies/ come from it (cuda-bindings and NVRTC must be importable: pip install -e . or the image's).
# Wheels in .whl/ are installed into /tmp/site first (no index there), as are cupti-python (.carry/cupti/) and
# cuda-bench (.carry/cuda-bench/) for the phases that use them; cuda-bindings 12.9 with NVRTC 12.9 come from
# .carry/cu12/ (cuda_bindings-12.9*.whl and nvrtc12.tar.xz: libnvrtc.so.12 and libnvrtc-builtins.so.12.9 from the
# nvidia-cuda-nvrtc-cu12 wheel), and CUPTI 12 for them from .carry/cupti12/ where carried (cu12_env says what).
#
# GPU_TESTS (default "tests"): the test paths the gputests and cu12 phases give pytest (re-running the files a
# full run found failing, after their fix, in a short call).
#
# Each phase writes into OUT/PHASE/, makes the machine's paths relative (benchmarks/scrub_paths.sh), packs the
# folder as OUT/PHASE.tgz (a lent machine returns at most 8 files) and keeps OUT/PHASE_steps.log beside it: one
# line per step with its exit code and seconds. Every step has a timeout, cut so that the whole call ends within
# H200_BUDGET seconds (default 540); a step with less than 10 s left is skipped with one line. A script another
# change is still adding is run where present and skipped with one line where absent.
#
# Each round's exact script is kept beside its results: copy this file into the round's results folder
# (benchmarks/results/<date>_H200_<round>/h200.sh) with them. Exit: 0 every step passed, 1 a step failed,
# 2 bad usage, an unknown phase or no GPU (one line).
set -uo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$self")/.."

say() { echo "h200.sh: $*" >&2; }

# phase_NAME functions, in --list order; the description is the comment on the function's line
phase_gputests() {  # the GPU suite under cuda-bindings 13 (pytest -m gpu tests)
  t 300 gpu_tests_cu13 $PY -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider ${GPU_TESTS:-tests} \
    > "$r/gpu_tests_cu13.log" 2>&1
  tail -3 "$r/gpu_tests_cu13.log"
}

phase_lifetime() {  # the lifetime matrix (18 objects x 8 ends, a process per cell) and its compute-sanitizer sample
  t 300 lifetime_matrix $PY benchmarks/lifetime/matrix.py --jobs 12 --timeout 40 --sanitize 6 \
    --json "$r/lifetime_matrix.json" > "$r/lifetime_matrix.log" 2>&1
  tail -30 "$r/lifetime_matrix.log"
}

phase_cu12() {  # cuda-bindings 12.9 with NVRTC 12.9 (.carry/cu12): info and the GPU suite
  (  # a subshell: the cu12 environment ends with it; a failed step fails the call
    cu12_env || exit 0
    t 60 info_cu12 $cgl info > "$r/info_cu12.log" 2>&1
    t 300 gpu_tests_cu12 $PY -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider ${GPU_TESTS:-tests} \
      > "$r/gpu_tests_cu12.log" 2>&1
    tail -3 "$r/gpu_tests_cu12.log"
    exit "$failed"
  ) || failed=1
}

phase_run() {  # cugraphlab run at 2^20 and 1,024 floats, twice, alternated; with CGL_BEFORE=DIR that tree too
  # CGL_BEFORE: a copy of an older tree (e.g. git archive COMMIT cugraphlab kernels | tar -x -C .before), run from
  # its own folder so that its cugraphlab is the one imported; CGL_BEFORE_LABEL names it in the log.
  local log="$r/run_before_after.log" label=${CGL_BEFORE_LABEL:-before} who size round
  local trees=(after)
  if [ -n "${CGL_BEFORE:-}" ]; then
    if [ ! -d "$CGL_BEFORE/cugraphlab" ]; then
      echo "run: CGL_BEFORE=$CGL_BEFORE holds no cugraphlab/" | tee -a "$steps"; failed=1; return 1; fi
    trees=(before after)
    diff -rq "$CGL_BEFORE/kernels" kernels > "$r/kernels_diff.txt" 2>&1 \
      && echo "kernels/ identical in both trees" >> "$r/kernels_diff.txt"
  fi
  for round in 1 2; do
    for who in "${trees[@]}"; do
      for size in 2^20 1024; do
        echo "=== ${who/before/$label} run ${size} round $round" >> "$log"
        local json="$r/${who}_${size/^/_}_$round.json"
        if [ "$who" = before ]; then
          # its records name the before tree (CUGRAPHLAB_COMMIT, exported for the after tree, would name that)
          t 90 "run_${who}_${size/^/_}_$round" env -C "$CGL_BEFORE" PYTHONPATH="$site_only" CUGRAPHLAB_COMMIT="$label" \
            $PY -m cugraphlab run --size "$size" --json "$json" >> "$log" 2>&1
        else
          t 90 "run_${who}_${size/^/_}_$round" $cgl run --size "$size" --json "$json" >> "$log" 2>&1
        fi
      done
    done
  done
}

phase_examples() {  # every examples/NN_*.py (each output is its docstring's last block)
  mkdir -p "$r/examples"
  local f n
  for f in examples/[0-9][0-9]_*.py; do
    n=$(basename "$f" .py)
    t 90 "example_$n" $PY -X faulthandler "$f" > "$r/examples/$n.log" 2>&1
    echo "exit $?" >> "$r/examples/$n.log"
  done
}

phase_notebooks() {  # every course notebook under cu13, outputs written in place and copied out (notebooks_h200.sh)
  install_carried nb  # nbclient, nbformat, ipykernel and their dependencies (.carry/nb/, cp312)
  opt 420 notebooks_cu13 benchmarks/notebooks_h200.sh "$r" || true
  mkdir -p "$r/nb" "$r/nb/solutions"
  [ "$dry" = 1 ] || { cp notebooks/*.ipynb "$r/nb/"; cp notebooks/solutions/*.ipynb "$r/nb/solutions/"; }
}

phase_notebooks_cu12() {  # every notebook and solution under cuda-bindings 12.9 + NVRTC 12.9 (.carry/cu12): log only
  install_carried nb
  (  # a subshell: the cu12 environment ends with it; the notebooks stay as committed (--no-write)
    cu12_env || exit 0
    opt 420 notebooks_cu12 benchmarks/notebooks_h200.sh "$r" --no-write || true
    exit "$failed"
  ) || failed=1
}

phase_exercises() {  # every exercise's check: passes on its solution, rejects a plausible wrong answer (all 34, GPU)
  install_carried nb; install_carried cupti  # IPython (notebook_runner.py runs the cells, no Jupyter kernel); 06 CUPTI
  t 400 exercise_checks env REQUIRE_GPU=1 $PY -m pytest -q -p no:cacheprovider -s -m gpu \
    tests/package/test_exercise_checks_gpu.py > "$r/exercise_checks.log" 2>&1
}

phase_measure() {  # a user's saxpy.cu and CuPy callable measured and checked from the command line; measure_overhead.py
  local demo=benchmarks/measure_demo size
  for size in 2^20 2^10; do
    t 90 "measure_saxpy_${size/^/_}" $cgl measure "$demo/saxpy.cu" --kernel saxpy --size "$size" \
      --args out,x,y,2.0,n --check "$demo/saxpy_check.py:check" --json "$r/measure_saxpy_${size/^/_}.json" \
      > "$r/measure_saxpy_${size/^/_}.log" 2>&1
  done
  t 120 measure_cupy $cgl measure "$demo/cupy_saxpy.py:step" --setup make --prepare refill --check verify \
    --stream cupy --processes 4 --json "$r/measure_cupy.json" > "$r/measure_cupy.log" 2>&1
  t 60 measure_self_diff $cgl diff "$r/measure_saxpy_2_20.json" "$r/measure_saxpy_2_20.json" \
    > "$r/measure_self_diff.log" 2>&1
  opt 240 measure_overhead benchmarks/measure_overhead.py "$r/measure_overhead"
}

phase_diff() {  # diff's verdicts on self, repeated and slowed records (diff_judges.py); the 1 µs probe (diff_check.py)
  opt 300 diff_judges benchmarks/diff_judges.py "$r/diff_judges"
  t 120 diff_check $PY -X faulthandler benchmarks/diff_check.py "$r/diff_check" > "$r/diff_check.log" 2>&1
}

phase_nvbench() {  # the same kernels timed by cuda-bench and by measure (benchmarks/studies/nvbench/run.py)
  install_carried cuda-bench
  opt 480 nvbench benchmarks/studies/nvbench/run.py "$r/nvbench"
}

phase_nvbench_product() {  # the product study: measure (product_side.py), cuda-bench (nvbench_side.py), compare.py
  install_carried cuda-bench
  local d="$r/nvbench_product"
  mkdir -p "$d"
  opt 360 product_side benchmarks/studies/nvbench_product/product_side.py "$d"
  t 180 nvbench_side $PY -X faulthandler benchmarks/studies/nvbench_product/nvbench_side.py "$d" \
    > "$r/nvbench_side.log" 2>&1
  if [ "$dry" = 1 ] || { [ -f "$d/product_side.json" ] && [ -f "$d/nvbench_side.json" ]; }; then
    t 30 nvbench_compare $PY benchmarks/studies/nvbench_product/compare.py "$d/nvbench_side.json" \
      "$d/product_side.json" --json "$d/compare.json" > "$r/compare.log" 2>&1
    [ "$dry" = 1 ] || cat "$r/compare.log"
    if [ "$dry" = 1 ] || [ -f "$d/product_side_cli.json" ]; then  # the same through the command line
      t 30 nvbench_compare_cli $PY benchmarks/studies/nvbench_product/compare.py "$d/nvbench_side.json" \
        "$d/product_side_cli.json" --json "$d/compare_cli.json" > "$r/compare_cli.log" 2>&1
      [ "$dry" = 1 ] || cat "$r/compare_cli.log"
    fi
  else
    echo "nvbench_compare: skipped (product_side.json or nvbench_side.json is missing)" | tee -a "$steps"; failed=1
  fi
}

phase_cold_small() {  # measure's cold against cuda-bench's at 1,024 floats, the recipes taken apart (cold_small.py)
  install_carried cuda-bench
  local i
  for i in ${COLD_SMALL_PROCESSES:-1}; do  # e.g. COLD_SMALL_PROCESSES="1 2": a fresh process each
    t 150 "cold_small_$i" $PY -X faulthandler benchmarks/studies/nvbench_product/cold_small.py "$r/cold_small_$i" \
      > "$r/cold_small_$i.log" 2>&1
    [ "$dry" = 1 ] || tail -5 "$r/cold_small_$i.log"
  done
}

phase_launch_scaling() {  # graph launch against size by NVIDIA's protocol, C beside Python, 3 processes; scaling's line
  local i
  for i in 1 2 3; do  # fresh processes: the launch-cost mode moves between them
    t 60 "launch_scaling_$i" $PY -X faulthandler benchmarks/studies/graph_launch_scaling/run.py \
      "$r/launch_scaling_$i.json" > "$r/launch_scaling_$i.log" 2>&1
  done
  t 100 scaling_line $cgl scaling --topology line --lengths 4,16,64,256,1024,4096 --budget 40 \
    --json "$r/scaling_line.json" > "$r/scaling_line.log" 2>&1
}

phase_plugin() {  # the pytest plugin's false alarms and detections over repeated runs (plugin_false_alarms.py)
  opt 480 plugin_false_alarms benchmarks/plugin_false_alarms.py "$r/plugin"
}

phase_ci_recipe() {  # the CI recipe through the command line: false SLOWER, a 1 µs delay, a kernel 10% longer (ci_recipe.py)
  opt 500 ci_recipe benchmarks/ci_recipe.py "$r/ci_recipe" --max-seconds 440
  [ "$dry" = 1 ] || tail -n 6 "$r/ci_recipe.out"  # the summary table
}

phase_sanitize() {  # compute-sanitizer: memcheck and racecheck over the graph commands at small sizes
  if [ "$dry" = 0 ] && ! command -v compute-sanitizer > /dev/null; then
    echo "sanitize: skipped (compute-sanitizer is not on PATH)" | tee -a "$steps"; return 0; fi
  mkdir -p "$r/sanitizer"
  san memcheck native_launch $PY -m pytest -q -m gpu -p no:cacheprovider tests/core/test_native_launch_gpu.py
  san memcheck conditional $cgl conditional --size 4096 --iterations 20 --repeats 1 --pdl --decide-every 10
  san memcheck devlaunch $cgl devlaunch --size 4096 --iterations 50 --repeats 1
  san memcheck switch $cgl switch --size 4096 --iters 20 --repeats 6 --no-sweep --holding-batch 4 --holding-repeats 2
  san memcheck memnodes $cgl memnodes --size 4096 --iters 20 --repeats 1 --first-samples 1
  san memcheck nodes $cgl nodes --size 4096 --repeats 1 --iters 20 --calls 50
  san racecheck conditional $cgl conditional --size 4096 --iterations 10 --repeats 1 --pdl
  san racecheck memnodes $cgl memnodes --size 4096 --iters 20 --repeats 1 --first-samples 1
  san racecheck nodes $cgl nodes --size 4096 --repeats 1 --iters 20 --calls 50
  san racecheck switch $cgl switch --size 4096 --iters 10 --repeats 6 --no-sweep --holding-batch 4 --holding-repeats 2
  local m
  for m in host events child join memory; do san racecheck "graph_$m" $cgl graph --mode $m --size 4096; done
  cat "$r/sanitizer/SUMMARY.txt" 2>/dev/null
}

phase_compare() {  # two default compares back to back, their diff, the rank check (compare_repeat_check.py)
  local i
  for i in 1 2; do
    t 240 "compare_default_$i" $cgl compare --quiet --json "$r/compare_default_$i.json" \
      --plot "$r/compare_default_$i" > "$r/compare_default_$i.log" 2>&1
  done
  t 30 diff_default $cgl diff "$r/compare_default_1.json" "$r/compare_default_2.json" \
    --json "$r/diff_default.json" --plot "$r/diff_default" > "$r/diff_default.log" 2>&1
  t 30 compare_repeat_check $PY benchmarks/compare_repeat_check.py "$r/compare_default_1.json" \
    "$r/compare_default_2.json" --out "$r/compare_repeat_check.log" > /dev/null 2>&1
}

phase_floor() {  # the floor table, graph table first in a fresh process (run.py); the floor studies (run_studies.py)
  t 120 floor_first $PY -X faulthandler benchmarks/studies/floor/run.py --first graphs "$r/floor_first.json" \
    > "$r/floor_first.log" 2>&1
  t 240 floor_studies $PY -X faulthandler benchmarks/studies/floor/run_studies.py "$r/floor_studies" \
    > "$r/floor_studies.out" 2>&1
}

phase_exec_update() {  # cuGraphExecUpdate from C and every Python way, paired (studies/exec_update/run.py)
  t 120 exec_update $PY -X faulthandler benchmarks/studies/exec_update/run.py "$r/exec_update" \
    > "$r/exec_update.out" 2>&1
}

phase_launch_modes() {  # where the launch-cost modes come from, a child process per experiment (launch_modes/run.py)
  t 300 launch_modes $PY -X faulthandler benchmarks/studies/launch_modes/run.py "$r/launch_modes.json" \
    > "$r/launch_modes.log" 2>&1
  t 180 launch_modes_followup $PY benchmarks/studies/launch_modes/followup.py "$r/launch_modes_followup.json" \
    > "$r/launch_modes_followup.log" 2>&1
}

phase_graph_api() {  # the lesson benchmarks: nodes, memory nodes, SWITCH, WHILE bodies, device loops
  t 90 nodes $PY -X faulthandler benchmarks/nodes.py "$r/nodes.json" > "$r/nodes.log" 2>&1
  t 90 memnodes $PY -X faulthandler benchmarks/memnodes.py "$r/memnodes.json" > "$r/memnodes.log" 2>&1
  t 130 switch $PY -X faulthandler benchmarks/switch.py "$r/switch" > "$r/switch.out" 2>&1
  t 130 while_fold $PY -X faulthandler benchmarks/while_fold.py "$r/while_fold" > "$r/while_fold.out" 2>&1
  t 150 devlaunch $PY -X faulthandler benchmarks/devlaunch.py "$r/devlaunch" > "$r/devlaunch.out" 2>&1
}

phase_host() {  # the host side: native launch against C, the scaling sweep, the capture doctor (+ CUPTI if carried)
  install_carried cupti
  t 90 native_launch $PY -X faulthandler benchmarks/native_launch.py "$r/native_launch" > "$r/native_launch.out" 2>&1
  t 170 scaling_default $PY benchmarks/scaling.py "$r/scaling_default.json" --budget 90 \
    --csv "$r/scaling_default.csv" --plot "$r/scaling_default" > "$r/scaling_default.log" 2>&1
  t 60 doctor $PY -X faulthandler benchmarks/doctor.py "$r/doctor.json" --programs examples > "$r/doctor.log" 2>&1
  if [ "$dry" = 1 ] || $PY -c "import cupti" > /dev/null 2>&1; then
    t 90 doctor_cupti $PY -X faulthandler benchmarks/doctor_cupti.py "$r/doctor_cupti" > "$r/doctor_cupti.out" 2>&1
  else
    echo "doctor_cupti: skipped (cupti-python is not importable: carry it in .carry/cupti/)" | tee -a "$steps"
  fi
}

phase_doctor_clean() {  # the capture doctor over every example and notebook (0 false alarms) and its overhead; CGL_BEFORE=DIR: that tree's too
  install_carried nb  # IPython for the notebooks' display calls and matplotlib (a stand-in otherwise)
  t 420 doctor_clean $PY -X faulthandler benchmarks/doctor.py "$r/doctor.json" --workers 4 > "$r/doctor.log" 2>&1
  grep -E "^under the doctor|^doctor overhead" "$r/doctor.log" | tail -4
}

phase_doctor_field() {  # the capture doctor's field gallery: mistakes from public threads and their fixes, replay watch, clean set
  t 420 doctor_field $PY -X faulthandler benchmarks/doctor_field.py "$r/doctor_field.json" --workers 6 \
    > "$r/doctor_field.log" 2>&1
  tail -1 "$r/doctor_field.log"
}

phase_doctor_payoff() {  # the replay watch's break-even against cugraphlab measure's on one callable (doctor_payoff.py)
  t 120 doctor_payoff $PY -X faulthandler benchmarks/doctor_payoff.py "$r/doctor_payoff" > "$r/doctor_payoff.log" 2>&1
  tail -1 "$r/doctor_payoff.log"
}

phase_ratios() {  # the figures the GPU tests once bounded, with their intervals (ratio_figures.py)
  install_carried cupti
  t 300 ratio_figures $PY -X faulthandler benchmarks/ratio_figures.py "$r/ratio_figures" > "$r/ratio_figures.log" 2>&1
}

# ---- helpers ----

t() {  # t SECONDS NAME CMD...: CMD under a timeout that never runs past the call's budget; one line in the steps log
  local limit=$1 name=$2; shift 2
  if [ "$dry" = 1 ]; then echo "$name: $*" | tee -a "$steps"; return 0; fi
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 10 ]; then
    echo "$name: skipped (the call's budget of $budget s is spent)" | tee -a "$steps"; failed=1; return 124; fi
  [ "$limit" -gt "$left" ] && limit=$left
  local start=$SECONDS rc=0
  timeout "$limit" "$@" || rc=$?
  echo "$name -> exit $rc, $((SECONDS - start)) s (limit $limit s)" >> "$steps"
  [ "$rc" -eq 0 ] || failed=1
  return "$rc"
}

opt() {  # opt SECONDS NAME SCRIPT ARGS...: a script another change adds: run where present, one line where absent
  local limit=$1 name=$2 script=$3; shift 3
  if [ ! -f "$script" ]; then echo "$name: skipped ($script is not in this tree)" | tee -a "$steps"; return 0; fi
  case "$script" in
    *.sh) t "$limit" "$name" bash "$script" "$@" > "$r/$name.out" 2>&1 ;;
    *) t "$limit" "$name" $PY -X faulthandler "$script" "$@" > "$r/$name.out" 2>&1 ;;
  esac
}

san() {  # san TOOL NAME CMD...: compute-sanitizer TOOL over one command; its log, exit code and summary line
  local tool=$1 name=$2; shift 2
  local log="$r/sanitizer/${tool}_$name.log" rc=0
  t 120 "${tool}_$name" compute-sanitizer --tool "$tool" --report-api-errors no "$@" > "$log" 2>&1 || rc=$?
  echo "$tool $name -> $rc ($(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" 2>/dev/null | tail -1))" \
    >> "$r/sanitizer/SUMMARY.txt"
}

install_carried() {  # install_carried NAME: the wheels in .carry/NAME/ into /tmp/site, where carried
  if [ "$dry" = 1 ] || ! ls ".carry/$1/"*.whl > /dev/null 2>&1; then return 0; fi
  $PY -m pip install -q --no-index --no-deps --target /tmp/site ".carry/$1/"*.whl > "$r/pip_$1.log" 2>&1
}

cu12_env() {  # cuda-bindings 12.9 and NVRTC 12.9 from .carry/cu12 for the calling subshell (preloaded NVRTC 12)
  # cuda.pathfinder searches site-packages (where the cu13 NVRTC wheel is) before PYTHONPATH: preloading
  # libnvrtc.so.12 makes it the one already loaded, which pathfinder takes.
  [ "$dry" = 1 ] && return 0
  if ! ls .carry/cu12/cuda_bindings-12.9*.whl .carry/cu12/nvrtc12.tar.xz > /dev/null 2>&1; then
    echo "cu12: skipped (.carry/cu12/ lacks cuda_bindings-12.9*.whl or nvrtc12.tar.xz)" | tee -a "$steps"
    return 1
  fi
  $PY -m pip install -q --no-index --no-deps --target /tmp/cu12 .carry/cu12/cuda_bindings-12.9*.whl \
    > "$r/pip_cu12.log" 2>&1
  tar -xJf .carry/cu12/nvrtc12.tar.xz -C /tmp/cu12
  export PYTHONPATH="/tmp/cu12:$PYTHONPATH" LD_PRELOAD=/tmp/cu12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
  export LD_LIBRARY_PATH="/tmp/cu12/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # CUPTI 12 where carried (.carry/cupti12/: cupti-python 12.8, pyelftools, libcupti12.tar.xz holding
  # nvidia/cuda_cupti/lib/libcupti.so.12 of nvidia-cuda-cupti-cu12): preloaded too, so that the image's libcupti 13
  # is not the one cuda.pathfinder picks
  if ls .carry/cupti12/cupti_python-12*.whl .carry/cupti12/libcupti12.tar.xz > /dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --target /tmp/cu12 .carry/cupti12/*.whl > "$r/pip_cupti12.log" 2>&1
    tar -xJf .carry/cupti12/libcupti12.tar.xz -C /tmp/cu12
    export LD_PRELOAD="$LD_PRELOAD:/tmp/cu12/nvidia/cuda_cupti/lib/libcupti.so.12"
    export LD_LIBRARY_PATH="/tmp/cu12/nvidia/cuda_cupti/lib:$LD_LIBRARY_PATH"
  fi
}

list_phases() {  # every phase_NAME function of this file, in its order: NAME (with - for _), two spaces, its comment
  local line name
  while IFS= read -r line; do
    name=${line#phase_}; name=${name%%"()"*}
    printf '%s  %s\n' "${name//_/-}" "${line#*\# }"
  done < <(grep -E '^phase_[a-z0-9_]+\(\) \{ +# ' "$self")
}

# ---- the call ----

dry=0
case "${1:-}" in
  --list) list_phases; exit 0 ;;
  --dry-run) dry=1; shift ;;
esac
if [ $# -ne 2 ]; then say "usage: bash benchmarks/h200.sh PHASE[,PHASE...] OUT (bash benchmarks/h200.sh --list: the phases)"; exit 2; fi
IFS=, read -ra phases <<< "$1"
out=$2
known=" $(list_phases | cut -d' ' -f1 | tr '\n' ' ') "
for p in "${phases[@]}"; do
  if [ -z "$p" ] || [[ "$known" != *" $p "* ]]; then
    say "unknown phase '$p' (known:$(echo "$known" | sed 's/ *$//'))"; exit 2; fi
done
if [ "$dry" = 0 ] && ! nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
  say "no GPU found (nvidia-smi -L lists none): run it on the GPU machine"; exit 2
fi

export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
cgl="$PY -m cugraphlab"  # a variable, not a function: timeout runs it
budget=${H200_BUDGET:-540}
deadline=$((SECONDS + budget))
failed=0
mkdir -p "$out"
out=$(cd "$out" && pwd)
site_only="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"  # the carried wheels (and what PYTHONPATH held)
export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"  # the carried wheels, then the tree
if [ "$dry" = 0 ]; then
  if ls .whl/*.whl > /dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl > "$out/pip_site.log" 2>&1
  fi
  if ! $PY -c "import cugraphlab, cuda.bindings" 2> /dev/null; then
    say "$PY cannot import cugraphlab and cuda.bindings (pip install -e . first)"; exit 2; fi
fi

for p in "${phases[@]}"; do
  r="$out/$p"; steps="$out/${p}_steps.log"
  mkdir -p "$r"; : > "$steps"
  echo "== $p  $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')" >> "$steps"
  [ "$dry" = 1 ] || nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/gpu.txt" 2>&1
  "phase_${p//-/_}"
  if [ "$dry" = 0 ]; then
    find "$r" -type f \( -name '*.log' -o -name '*.json' -o -name '*.txt' -o -name '*.out' -o -name '*.csv' \
      -o -name '*.ipynb' \) -print0 | xargs -0 -r bash benchmarks/scrub_paths.sh --strip "$r/" --strip "$out/"
    tar -czf "$out/$p.tgz" -C "$out" "$p" && rm -rf "$r"
  fi
  cat "$steps"
done
exit "$failed"
