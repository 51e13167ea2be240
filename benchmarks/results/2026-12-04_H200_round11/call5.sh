#!/usr/bin/env bash
# session 11, call 5: the GPU suite under cu13 and under cu12 (CUPTI 12 carried) at the final code
cd "$(dirname "$0")/.."
export CUGRAPHLAB_COMMIT="$1"
python3 -m pip install --no-deps --no-build-isolation --no-index -q -e . > $OUT/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
H200_BUDGET=${BUDGET:-560} bash benchmarks/h200.sh gputests,cu12 $OUT > $OUT/h200_call5.out 2>&1
echo "h200.sh rc=$?" >> $OUT/h200_call5.out
cd $OUT && tar cf final.tar --exclude=final.tar . 2>/dev/null; find . -mindepth 1 -maxdepth 1 ! -name final.tar ! -name h200_call5.out -exec rm -rf {} +
ls -la; tail -30 h200_call5.out
