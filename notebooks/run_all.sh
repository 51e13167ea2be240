#!/usr/bin/env bash
# Execute every course notebook in place (outputs written into the .ipynb) with nbclient, 120 s per notebook,
# and write a log. Run from the repository root on the GPU machine:
#     bash notebooks/run_all.sh [LOG]            (default log: notebooks/run_all.log)
# Needs nbclient, nbformat and ipykernel (pip install 'cugraphlab[test]', or the wheels in .whl/ offline:
# pip install --no-index --find-links .whl nbclient nbformat ipykernel). PYTHON picks the interpreter.
set -u
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
LOG="${1:-notebooks/run_all.log}"
: > "$LOG"
fail=0
{
  echo "# notebooks/run_all.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  "$PY" -c "import sys, cugraphlab; print('python', sys.version.split()[0], '| cugraphlab', cugraphlab.__version__)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: none"
} >> "$LOG" 2>&1
for nb in notebooks/[0-9][0-9]_*.ipynb; do
  start=$SECONDS
  if PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" - "$nb" >> "$LOG" 2>&1 <<'PYEOF'
import sys
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": "notebooks"}})
try:
    client.execute()
finally:
    nbformat.write(nb, path)  # what ran is kept, also when a cell failed
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for o in cell.outputs:
                if o.output_type == "error":
                    print(f"  cell {i}: {o.ename}: {o.evalue}")
PYEOF
  then status=ok; else status=FAILED; fail=1; fi
  printf '%-34s %-7s %4d s\n' "$(basename "$nb")" "$status" "$((SECONDS - start))" | tee -a "$LOG"
done
echo "exit $fail" >> "$LOG"
exit $fail
