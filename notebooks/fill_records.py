"""Write the outputs of every [record] cell into the committed notebooks (course and solutions), without a GPU.

A record cell draws a committed H200 record (benchmarks/results/..., shipped in the package as
cugraphlab/course_records/ by notebooks/pack_records.py), so its output is the same on any machine: this
script executes each notebook on this machine's CPU (nbclient, a fresh kernel, the checkout on PYTHONPATH) and
copies the outputs of its record cells, and only those, into the committed .ipynb. Every other cell keeps what it
has (the H200's outputs, or none until the next H200 run). Run it after changing a record cell, before committing:

    python3 notebooks/fill_records.py [NOTEBOOK.ipynb ...]     (default: every notebook and solutions notebook)

Needs nbclient, nbformat and ipykernel (pip install -e '.[test]'). tests/package/test_course_setup.py checks that the
committed record outputs are what the record cells print now (from a wheel of the tree).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def record_outputs(path: Path) -> dict[str, list]:
    """Cell id -> outputs of each record cell of ``path``, executed here without a GPU."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    env = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.environ["PYTHONPATH"] = env
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}},
                   allow_errors=True).execute()
    out = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and "record" in cell.metadata.get("tags", []):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            if errors:
                raise SystemExit(f"{path.name}: record cell {cell.get('id')}: {errors[0].ename}: {errors[0].evalue}")
            out[cell.get("id")] = [json.loads(json.dumps(o)) for o in cell.outputs]
    return out


def fill(path: Path) -> int:
    nb = json.loads(path.read_text())
    outputs = record_outputs(path)
    n = 0
    for cell in nb["cells"]:
        if cell.get("id") in outputs:
            cell["outputs"] = outputs[cell["id"]]
            cell["execution_count"] = None
            n += 1
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return n


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a) for a in args] or sorted([*HERE.glob("[0-9][0-9]_*.ipynb"),
                                               *(HERE / "solutions").glob("[0-9][0-9]_*.ipynb")])
    for p in paths:
        print(f"{p.relative_to(ROOT) if p.is_absolute() else p}: {fill(p.resolve())} record cell(s) filled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
