#!/usr/bin/env bash
# Execute every course notebook, the capstone and every solutions notebook on the GPU machine, in place
# (notebooks/run_all.sh: nbclient, 180 s per cell), and keep the log: one line per notebook, ok/FAILED and
# seconds, a failed cell's error, any GPU cell that skipped (a skip fails the notebook here: REQUIRE_GPU=1), the
# total. About 4 minutes on the H200 (15 course notebooks and 15 solutions). Run from the repository root:
#
#     bash benchmarks/notebooks_h200.sh OUTDIR               # cu13: outputs written into notebooks/**/*.ipynb
#     bash benchmarks/notebooks_h200.sh OUTDIR --no-write    # cu12: log only, the notebooks stay as committed
#
# Offline wheels, installed with pip --no-index --no-deps --target "$SITE" (SITE: $NB_SITE, default /tmp/site), put
# on PYTHONPATH after whatever PYTHONPATH already holds (so that cuda-bindings 12 placed there for a cu12 run wins;
# give libnvrtc.so.12 on LD_LIBRARY_PATH yourself):
#   .carry/nb/*.whl or .whl/*.whl: nbclient, nbformat, ipykernel and their dependencies for Python 3.12 (debugpy
#                       left out: ipykernel runs without its debugger)
#                       (benchmarks/notebook_wheels_py312.txt lists them:
#                       pip download --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64
#                       --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any
#                       -d .whl -r benchmarks/notebook_wheels_py312.txt --no-deps)
#   .carry/cupti/*.whl  cupti-python and pyelftools, for notebook 06's CUPTI cell (skipped, so failed, without them)
# The notebook run itself needs nothing else from the network: devlaunch's nvJitLink and libcudadevrt.a, torch
# (the capstone's comparison; without it that cell says "skipped" and the run goes on) are the image's.
# Writes OUTDIR/notebooks_<cuda-bindings major>.log; exit 1 when a notebook failed.
set -u
cd "$(dirname "$0")/.."
OUT="${1:?usage: bash benchmarks/notebooks_h200.sh OUTDIR [--no-write]}"
shift
MODE="${1:-}"
if [ -n "$MODE" ] && [ "$MODE" != "--no-write" ]; then
  echo "unknown option $MODE (only --no-write)" >&2; exit 2
fi
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
SITE="${NB_SITE:-/tmp/site}"
if ! PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$SITE" "$PY" -c "import nbclient, nbformat, ipykernel" 2>/dev/null; then
  wheels=$(ls .carry/nb/*.whl .whl/*.whl 2>/dev/null)
  [ -n "$wheels" ] || { echo "no wheels in .carry/nb/ or .whl/ and nbclient is not importable" >&2; exit 2; }
  "$PY" -m pip install -q --no-index --no-deps --target "$SITE" $wheels || exit 2
fi
if ls .carry/cupti/*.whl >/dev/null 2>&1 && \
   ! PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$SITE" "$PY" -c "import cupti, elftools" 2>/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --target "$SITE" .carry/cupti/*.whl || exit 2
fi
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$SITE"
export PYTHON="$PY" REQUIRE_GPU=1
MAJOR=$("$PY" -c "from cuda.bindings import __version__ as v; print('cu' + v.split('.')[0])" 2>/dev/null || echo "cu?")
LOG="$OUT/notebooks_$MAJOR.log"
start=$SECONDS
bash notebooks/run_all.sh $MODE "$LOG"
rc=$?
echo "notebooks_h200.sh: $MAJOR ${MODE:-(outputs written)}; $((SECONDS - start)) s; exit $rc; log $LOG" | tee -a "$LOG"
exit $rc
