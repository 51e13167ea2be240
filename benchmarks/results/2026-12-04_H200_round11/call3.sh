#!/usr/bin/env bash
# session 11, call 3: every notebook under cu13 (outputs written), the 34 exercise checks, the CUPTI GPU tests (cu13)
cd "$(dirname "$0")/.."
export CUGRAPHLAB_COMMIT="$1"
python3 -m pip install --no-deps --no-build-isolation --no-index -q -e . > $OUT/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
GPU_TESTS=tests/graphs/test_doctor_cupti_gpu.py H200_BUDGET=${BUDGET:-540} \
  bash benchmarks/h200.sh ${PHASES:-notebooks,exercises,gputests} $OUT > $OUT/h200_call3.out 2>&1
echo "h200.sh rc=$?" >> $OUT/h200_call3.out
cd $OUT && tar cf final.tar --exclude=final.tar . 2>/dev/null; find . -mindepth 1 -maxdepth 1 ! -name final.tar ! -name h200_call3.out -exec rm -rf {} +
ls -la; tail -30 h200_call3.out
