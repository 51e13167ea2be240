#!/usr/bin/env bash
# This round's H200 runs (one call each; the lent machine allows 10 minutes per call):
#   bash benchmarks/h200_round4.sh cu12 OUT   cuda-bindings 12 with NVRTC 12: info, the GPU tests, every notebook
#                                             (log only; the committed notebooks keep their cu13 outputs)
#   bash benchmarks/h200_round4.sh examples OUT   every example on cu13 (its output is each docstring's last block)
#   bash benchmarks/h200_round4.sh a OUT      cu13: GPU tests; memnodes, floor, native launch, exec update, WHILE fold
#                                             benchmarks; the node lessons' graph modes drawn
#   bash benchmarks/h200_round4.sh b OUT      cu13: two default compares back to back, their diff
#   bash benchmarks/h200_round4.sh c OUT      cu13: GPU tests, exec update, scaling default, doctor (+ CUPTI mode)
#   bash benchmarks/h200_round4.sh d OUT      every notebook under cu13 (outputs in place) and under cu12 (log)
# From the repo root with the package installed (pip install -e .). cu12 needs .carry/cu12 (the cuda-bindings 12.9
# wheel and nvrtc12.tar.xz: libnvrtc.so.12 + libnvrtc-builtins.so.12.9 from the nvidia-cuda-nvrtc-cu12 wheel) and
# the notebook wheels in .whl/. Everything lands in OUT/res.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
phase=$1; out=$2; r="$out/res"; mkdir -p "$r"
t() { local s=$1; shift; timeout "$s" "$@"; echo "$* -> $?" >> "$r/steps.log"; }
cgl="python3 -m cugraphlab"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/gpu_$phase.txt" 2>&1
if [ -d .whl ]; then python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl > "$r/pip_site.log" 2>&1; fi
export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
# cuda-bindings 12.9 and NVRTC 12.9 from .carry/cu12, for the calling (sub)shell. cuda.pathfinder searches the
# installed site-packages (where the cu13 NVRTC wheel is) before PYTHONPATH: preloading libnvrtc.so.12 makes it the
# one already loaded, which pathfinder takes.
cu12_env() {
  python3 -m pip install -q --no-index --no-deps --target /tmp/cu12 .carry/cu12/cuda_bindings-12.9*.whl > "$r/pip_cu12.log" 2>&1
  tar -xJf .carry/cu12/nvrtc12.tar.xz -C /tmp/cu12
  export PYTHONPATH="/tmp/cu12:$PYTHONPATH" LD_PRELOAD=/tmp/cu12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
  export LD_LIBRARY_PATH="/tmp/cu12/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
# cupti-python and pyelftools from .carry/cupti, where carried
install_cupti() {
  if ls .carry/cupti/*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .carry/cupti/*.whl > "$r/pip_cupti.log" 2>&1; fi
}
if [ "$phase" = cu12 ]; then
  (
    cu12_env
    t 60 $cgl info > "$r/info_cu12.log" 2>&1
    t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests_cu12.log" 2>&1
    tail -3 "$out/gpu_tests_cu12.log"
    cp -r notebooks /tmp/nb_cu12_src
    t 300 bash notebooks/run_all.sh "$r/notebooks_cu12.log" > /dev/null 2>&1
    mkdir -p "$r/nb_cu12"; cp notebooks/*.ipynb "$r/nb_cu12/"; cp /tmp/nb_cu12_src/*.ipynb notebooks/
  )
elif [ "$phase" = examples ]; then
  mkdir -p "$r/examples"
  for f in examples/[0-9][0-9]_*.py; do
    n=$(basename "$f" .py); t 90 python3 "$f" > "$r/examples/$n.log" 2>&1; echo "exit $?" >> "$r/examples/$n.log"; done
elif [ "$phase" = a ]; then  # GPU tests and the benches of what changed in issues 15 and 18
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  t 90 python3 -X faulthandler benchmarks/memnodes.py "$r/memnodes.json" > "$r/memnodes.log" 2>&1
  t 60 python3 -X faulthandler benchmarks/floor.py "$r/floor.json" > "$r/floor.log" 2>&1
  t 90 python3 -X faulthandler benchmarks/native_launch.py "$r" > "$r/native_launch.out" 2>&1
  t 90 python3 -X faulthandler benchmarks/exec_update.py "$r" > "$r/exec_update.out" 2>&1
  t 90 python3 -X faulthandler benchmarks/while_fold.py "$r" > "$r/while_fold.out" 2>&1
  for m in host events child join memory devlaunch; do
    t 60 $cgl graph --mode $m --size 4096 --draw "$r/draw_$m"; done > "$r/graph_modes.log" 2>&1
elif [ "$phase" = c ]; then  # GPU tests again (after the exec-update fix), exec update, scaling, doctor (+ CUPTI)
  install_cupti
  t 240 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests > "$out/gpu_tests.log" 2>&1
  tail -3 "$out/gpu_tests.log"
  t 90 python3 -X faulthandler benchmarks/exec_update.py "$r" > "$r/exec_update.out" 2>&1
  t 170 python3 benchmarks/scaling.py "$r/scaling_default.json" --budget 90 --csv "$r/scaling_default.csv" \
    --plot "$r/scaling_default" > "$r/scaling_default.log" 2>&1
  t 60 python3 -X faulthandler benchmarks/doctor.py "$r/doctor.json" > "$r/doctor.log" 2>&1
  if [ -f benchmarks/doctor_cupti.py ]; then
    t 60 python3 -X faulthandler benchmarks/doctor_cupti.py "$r" > "$r/doctor_cupti.out" 2>&1; fi
elif [ "$phase" = d ]; then  # the GPU tests fixed after c; every notebook: cu13 (outputs written in place, copied
  # out), then cu12 (log only)
  t 120 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests/bench/test_gpu_paired.py \
    tests/experiment/test_memchain_on_device.py > "$out/gpu_tests_rerun.log" 2>&1
  tail -3 "$out/gpu_tests_rerun.log"
  t 200 bash benchmarks/notebooks_h200.sh "$r" > /dev/null 2>&1
  mkdir -p "$r/nb"; cp notebooks/*.ipynb "$r/nb/"
  (
    cu12_env
    t 60 $cgl info > "$r/info_cu12.log" 2>&1
    t 180 bash benchmarks/notebooks_h200.sh "$r" --no-write > /dev/null 2>&1
  )
elif [ "$phase" = e ]; then  # the CUPTI mode (cupti-python and pyelftools carried in .carry/cupti)
  install_cupti
  t 120 python3 -X faulthandler -m pytest -q -m gpu -rs -p no:cacheprovider tests/graphs/test_gpu_doctor_cupti.py \
    tests/experiment/test_gpu_doctor.py > "$out/gpu_tests_cupti.log" 2>&1
  tail -3 "$out/gpu_tests_cupti.log"
  t 90 python3 -X faulthandler benchmarks/doctor_cupti.py "$r" > "$r/doctor_cupti.out" 2>&1
elif [ "$phase" = b ]; then
  for i in 1 2; do t 280 $cgl compare --quiet --json "$r/compare_default_$i.json" --plot "$r/compare_default_$i" > "$r/compare_default_$i.log" 2>&1; done
  t 30 $cgl diff "$r/compare_default_1.json" "$r/compare_default_2.json" --json "$r/diff_default.json" --plot "$r/diff_default" > "$r/diff_default.log" 2>&1
fi
cat "$r/steps.log"
tar czf "$out/res_$phase.tgz" -C "$out" res
