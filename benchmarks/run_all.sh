#!/usr/bin/env bash
# Everything this repo measures, in one go, on a machine with an NVIDIA GPU: the GPU tests, every command's output,
# and the benchmark scripts. Writes logs, JSON, CSV and figures under DIR (default benchmarks/results/<date>_<gpu>).
# Usage: bash benchmarks/run_all.sh [DIR]     (from the repo root, with the package installed: pip install -e .)
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
python3 -c 'import cugraphlab' || { echo 'install the package first: pip install -e .' >&2; exit 2; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/NVIDIA //; s/ /-/g')
day=$(date +%F)
dir=${1:-benchmarks/results/${day}_${gpu:-GPU}}
mkdir -p "$dir"
p="$dir/${day}_${gpu:-GPU}"
cgl() { python3 -m cugraphlab "$@"; }
step() { echo "== $*"; }

step "gpu tests";   python3 -m pytest -m gpu -q -p no:cacheprovider -rfE 2>&1 | tee "${p}_gpu_tests.log" | tail -3
step "info";        cgl info > "${p}_info.log" 2>&1
step "run (twice)"; cgl run --json "${p}_run.json" > "${p}_run.log" 2>&1
                    cgl run --json "${p}_run_again.json" > "${p}_run_again.log" 2>&1
step "run 1024";    cgl run --size 1024 --unroll 50 --json "${p}_run_1024.json" > "${p}_run_1024.log" 2>&1
step "latency";     cgl latency --json "${p}_latency.json" > "${p}_latency.log" 2>&1
step "timeline";    cgl timeline --out "${p}" --json "${p}_timeline.json" > "${p}_timeline.log" 2>&1
                    cgl timeline --probe --out "${p}_probe" --json "${p}_probe_timeline.json" > "${p}_probe_timeline.log" 2>&1
step "compare";     cgl compare --classic --json "${p}_compare.json" --csv "${p}_compare.csv" --plot "${p}_compare" > "${p}_compare.log" 2>&1
step "scale";       cgl scale --json "${p}_scale.json" --csv "${p}_scale.csv" --plot "${p}_scale" > "${p}_scale.log" 2>&1
                    cgl scale --work chain --launch eager,graph,graphK --threads 1,2,4 --launches 5000 --json "${p}_scale_chain.json" --plot "${p}_scale_chain" > "${p}_scale_chain.log" 2>&1
step "graph";       for m in capture explicit forkjoin while; do cgl graph --mode $m --size 4096 --dot "${p}_graph_$m.dot"; done > "${p}_graph.log" 2>&1
step "update";      cgl update > "${p}_update.log" 2>&1
step "pdl";         cgl pdl > "${p}_pdl.log" 2>&1
                    cgl pdl --unroll 50 > "${p}_pdl_unroll50.log" 2>&1
                    cgl pdl --size 1024 --unroll 50 > "${p}_pdl_1024_unroll50.log" 2>&1
step "conditional"; cgl conditional > "${p}_conditional.log" 2>&1
step "trace";       cgl run --size 1024 --iters 2 --repeats 1 --trace > "${p}_trace.log" 2>&1
step "benchmarks";  python3 benchmarks/core_overhead.py --out "$dir" > "${p}_core_overhead.log" 2>&1
                    python3 benchmarks/classic.py --out "$dir" > "${p}_classic.log" 2>&1
step "sweep";       cgl sweep --out "${p}_sweep" --json "${p}_sweep.json" --csv "${p}_sweep.csv" > "${p}_sweep.log" 2>&1
for f in "$dir"/*.log; do printf '%-60s %s\n' "$(basename "$f")" "$(tail -1 "$f" | cut -c1-60)"; done
