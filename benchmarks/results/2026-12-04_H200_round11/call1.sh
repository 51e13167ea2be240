#!/usr/bin/env bash
# session 11, call 1: notebooks 06 and 11 (+ solutions) under cu12 with CUPTI 12 carried; the CUPTI GPU tests under cu12
cd "$(dirname "$0")/.."
export CUGRAPHLAB_COMMIT="$1"
python3 -m pip install --no-deps --no-build-isolation --no-index -q -e . > $OUT/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
ONLY="06 11" GPU_TESTS=tests/graphs/test_doctor_cupti_gpu.py H200_BUDGET=${BUDGET:-400} \
  bash benchmarks/h200.sh cu12,notebooks-cu12 $OUT > $OUT/h200_cu12nb.out 2>&1
echo "h200.sh rc=$?" >> $OUT/h200_cu12nb.out
cd $OUT && tar cf final.tar --exclude=final.tar . 2>/dev/null; find . -mindepth 1 -maxdepth 1 ! -name final.tar ! -name h200_cu12nb.out -exec rm -rf {} +
ls -la; tail -30 h200_cu12nb.out
