#!/usr/bin/env bash
# Execute every course notebook in place (outputs written into the .ipynb) with nbclient, 120 s per notebook,
# and write a log (one line per notebook: ok/FAILED and seconds; a failed cell's error). Run from the repository
# root on the GPU machine:
#     bash notebooks/run_all.sh [--no-write] [LOG]    (default log: notebooks/run_all.log)
# --no-write: execute and log only, the notebooks stay as committed (a run under other bindings, e.g. cu12).
# REQUIRE_GPU=1: a GPU cell that skipped ("needs a GPU ...", "needs sm_90 ...") fails its notebook.
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
{
  echo "# notebooks/run_all.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')  $([ $WRITE = 1 ] && echo 'outputs written in place' || echo '--no-write: log only')"
  PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "import sys, cugraphlab; from cuda.bindings import __version__ as b; print('python', sys.version.split()[0], '| cugraphlab', cugraphlab.__version__, '| cuda-bindings', b)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: none"
} >> "$LOG" 2>&1
for nb in notebooks/[0-9][0-9]_*.ipynb; do
  start=$SECONDS
  if PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" - "$nb" "$WRITE" >> "$LOG" 2>&1 <<'PYEOF'
import sys
import nbformat
from nbclient import NotebookClient
path, write = sys.argv[1], sys.argv[2] == "1"
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": "notebooks"}})
try:
    client.execute()
finally:
    if write:
        nbformat.write(nb, path)  # what ran is kept, also when a cell failed
    skipped = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for o in cell.outputs:
                if o.output_type == "error":
                    print(f"  cell {i}: {o.ename}: {o.evalue}")
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            if "gpu" in cell.metadata.get("tags", []) and text.startswith("needs "):
                skipped += 1
                print(f"  cell {i} skipped: {text.strip()}")
import os
if skipped and os.environ.get("REQUIRE_GPU") == "1":
    sys.exit(f"  {skipped} GPU cell(s) skipped, and REQUIRE_GPU=1")
PYEOF
  then status=ok; else status=FAILED; fail=1; fi
  printf '%-34s %-7s %4d s\n' "$(basename "$nb")" "$status" "$((SECONDS - start))" | tee -a "$LOG"
done
echo "exit $fail" >> "$LOG"
exit $fail
