#!/usr/bin/env bash
# Execute every course notebook (notebooks/NN_*.ipynb, the capstone included) and every solutions notebook
# (notebooks/solutions/NN_*.ipynb) in place, outputs written into each .ipynb, with nbclient (TIMEOUT s per cell,
# default 180), and write a log: one line per notebook (ok/FAILED and seconds), a failed cell's error, and the
# total. Run from the repository root on the GPU machine:
#     bash notebooks/run_all.sh [--no-write] [LOG]    (default log: notebooks/run_all.log)
# --no-write: execute and log only, the notebooks stay as committed (a run under other bindings, e.g. cu12).
# REQUIRE_GPU=1: a GPU cell that skipped ("needs a GPU ...", "needs sm_90 ...") fails its notebook.
# ONLY="01 16": run only the notebooks whose number is listed (course and solutions).
# benchmarks/notebooks_h200.sh wraps this with the offline install of the notebook wheels.
# Needs nbclient, nbformat and ipykernel (pip install 'cugraphlab[test]', or the wheels in .whl/ offline:
# pip install --no-index --find-links .whl nbclient nbformat ipykernel). PYTHON picks the interpreter.
set -u
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
WRITE=1
if [ "${1:-}" = "--no-write" ]; then WRITE=0; shift; fi
LOG="${1:-notebooks/run_all.log}"
: > "$LOG"
fail=0
total_start=$SECONDS
{
  echo "# notebooks/run_all.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')  $([ $WRITE = 1 ] && echo 'outputs written in place' || echo '--no-write: log only')"
  PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "import sys, cugraphlab; from cuda.bindings import __version__ as b; print('python', sys.version.split()[0], '| cugraphlab', cugraphlab.__version__, '| cuda-bindings', b)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: none"
} >> "$LOG" 2>&1
for nb in notebooks/[0-9][0-9]_*.ipynb notebooks/solutions/[0-9][0-9]_*.ipynb; do
  name="${nb#notebooks/}"
  num="$(basename "$nb" | cut -c1-2)"
  if [ -n "${ONLY:-}" ] && ! printf ' %s ' "$ONLY" | grep -q " $num "; then continue; fi
  start=$SECONDS
  if PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" - "$nb" "$WRITE" "${TIMEOUT:-180}" >> "$LOG" 2>&1 <<'PYEOF'
import os
import sys
import nbformat
from nbclient import NotebookClient
path, write, timeout = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                        resources={"metadata": {"path": os.path.dirname(path)}})
skipped = 0
try:
    client.execute()
finally:
    if write:
        nbformat.write(nb, path)  # what ran is kept, also when a cell failed
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for o in cell.outputs:
                if o.output_type == "error":
                    print(f"  cell {i}: {o.ename}: {o.evalue}")
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            if "gpu" in cell.metadata.get("tags", []) and "\nneeds " in "\n" + text:
                skipped += 1
                print(f"  cell {i} skipped: {text.strip().splitlines()[-1]}")
if skipped and os.environ.get("REQUIRE_GPU") == "1":
    sys.exit(f"  {skipped} GPU cell(s) skipped, and REQUIRE_GPU=1")
PYEOF
  then status=ok; else status=FAILED; fail=1; fi
  printf '%-44s %-7s %4d s\n' "$name" "$status" "$((SECONDS - start))" | tee -a "$LOG"
done
echo "total $((SECONDS - total_start)) s; exit $fail" | tee -a "$LOG"
exit $fail
