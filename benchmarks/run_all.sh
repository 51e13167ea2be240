#!/usr/bin/env bash
# Everything this repo measures, in one go, on a machine with an NVIDIA GPU: the GPU tests, every command's output,
# and the benchmark scripts. Writes logs, JSON, CSV and figures under DIR (default benchmarks/results/<date>_<gpu>).
#
# Usage: bash benchmarks/run_all.sh [DIR]
# Needs: the package installed with its test and plot extras (pytest runs the GPU tests, matplotlib draws):
#     python3 -m venv .venv && .venv/bin/pip install -e '.[test,plot]'
# The Python used: $PYTHON, else .venv/bin/python where it exists, else python3.
# Exit status: 0 when every step exited 0; 2 (one line) without the installed package, pytest or matplotlib, or
# without a usable GPU, before any step; else 1, with the steps that failed named at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
py=${PYTHON:-}
if [ -z "$py" ]; then
    if [ -x .venv/bin/python ]; then py=.venv/bin/python; else py=python3; fi
fi
case $py in */*) py="$(cd "$(dirname "$py")" 2>/dev/null && pwd)/$(basename "$py")" ;; esac  # absolute: see the guard
me="run_all.sh"
# The import guard runs outside the repo: from its root, `import cugraphlab` would find the source folder even where
# nothing is installed.
if ! (cd / && "$py" -c 'import cugraphlab, cuda.bindings, pytest, matplotlib') >/dev/null 2>&1; then
    echo "$me: $py lacks the installed package, pytest or matplotlib: pip install -e '.[test,plot]' (or set PYTHON)" >&2
    exit 2
fi
cgl() { "$py" -m cugraphlab "$@"; }
# info prints its facts and exits 0 without a GPU too; its last line says when none is usable
if why=$(cgl info 2>&1 | grep '^no usable GPU: '); then
    echo "$me: $why" >&2
    exit 2
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/NVIDIA //; s/ /-/g')
day=$(date +%F)
dir=${1:-benchmarks/results/${day}_${gpu:-GPU}}
mkdir -p "$dir"
p="$dir/${day}_${gpu:-GPU}"
# scale refuses more launching threads than usable CPU cores: 1,2,4 cut to this machine
cores=$(nproc 2>/dev/null || echo 1)
threads=1
for t in 2 4; do [ "$t" -le "$cores" ] && threads="$threads,$t"; done

failed=()
step() {  # step NAME COMMAND...: run it, remember a non-zero exit
    local name=$1
    shift
    echo "== $name"
    "$@"
    local rc=$?
    [ "$rc" -eq 0 ] || { failed+=("$name (exit $rc)"); echo "   $name: exit $rc"; }
}
gpu_tests() { "$py" -m pytest -m gpu -q -p no:cacheprovider -rfE > "${p}_gpu_tests.log" 2>&1; local rc=$?
              tail -3 "${p}_gpu_tests.log"; return $rc; }
graphs() { local m rc=0
           for m in capture explicit forkjoin while; do cgl graph --mode $m --size 4096 --dot "${p}_graph_$m.dot" || rc=$?; done
           return $rc; }

step "gpu tests"        gpu_tests
step "info"             cgl info > "${p}_info.log" 2>&1
step "run"              cgl run --json "${p}_run.json" > "${p}_run.log" 2>&1
step "run again"        cgl run --json "${p}_run_again.json" > "${p}_run_again.log" 2>&1
step "run 1024"         cgl run --size 1024 --unroll 50 --json "${p}_run_1024.json" > "${p}_run_1024.log" 2>&1
step "latency"          cgl latency --json "${p}_latency.json" > "${p}_latency.log" 2>&1
step "timeline"         cgl timeline --out "${p}" --json "${p}_timeline.json" > "${p}_timeline.log" 2>&1
step "timeline probe"   cgl timeline --probe --out "${p}_probe" --json "${p}_probe_timeline.json" > "${p}_probe_timeline.log" 2>&1
step "compare"          cgl compare --classic --json "${p}_compare.json" --csv "${p}_compare.csv" --plot "${p}_compare" > "${p}_compare.log" 2>&1
step "scale"            cgl scale --json "${p}_scale.json" --csv "${p}_scale.csv" --plot "${p}_scale" > "${p}_scale.log" 2>&1
step "scale chain"      cgl scale --work chain --launch eager,graph,graphK --threads "$threads" --launches 5000 --json "${p}_scale_chain.json" --plot "${p}_scale_chain" > "${p}_scale_chain.log" 2>&1
step "graph"            graphs > "${p}_graph.log" 2>&1
step "update"           cgl update > "${p}_update.log" 2>&1
step "pdl"              cgl pdl > "${p}_pdl.log" 2>&1
step "pdl unroll 50"    cgl pdl --unroll 50 > "${p}_pdl_unroll50.log" 2>&1
step "pdl 1024"         cgl pdl --size 1024 --unroll 50 > "${p}_pdl_1024_unroll50.log" 2>&1
step "conditional"      cgl conditional > "${p}_conditional.log" 2>&1
step "trace"            cgl run --size 1024 --iters 2 --repeats 1 --trace > "${p}_trace.log" 2>&1
step "core overhead"    "$py" benchmarks/core_overhead.py --out "$dir" > "${p}_core_overhead.log" 2>&1
step "classic"          "$py" benchmarks/classic.py --out "$dir" > "${p}_classic.log" 2>&1
step "sweep"            cgl sweep --out "${p}_sweep" --json "${p}_sweep.json" --csv "${p}_sweep.csv" > "${p}_sweep.log" 2>&1
for f in "$dir"/*.log; do printf '%-60s %s\n' "$(basename "$f")" "$(tail -1 "$f" | cut -c1-60)"; done
if [ ${#failed[@]} -gt 0 ]; then
    echo "$me: ${#failed[@]} step(s) failed: $(IFS=';'; echo "${failed[*]}")" >&2
    exit 1
fi
echo "$me: every step exited 0; results in $dir"
