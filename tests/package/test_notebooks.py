"""The course notebooks (notebooks/): up to date with their sources, and runnable top to bottom without a GPU.

Without a GPU every cell tagged "gpu" must print exactly its one "needs a GPU: ..." line and nothing fails; the
CPU cells (install check, setup, the drawing fallback) run as they are. On the H200 notebooks/run_all.sh executes
them with outputs (the lead's GPU run).
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted((NOTEBOOKS / "src").glob("[0-9][0-9]_*.py"))


def _gpu_present() -> bool:
    try:
        import cugraphlab as cgl

        return cgl.device_count() > 0
    except Exception:
        return False


def test_the_course_has_its_twelve_notebooks():
    assert [p.stem[:2] for p in SOURCES] == [f"{i:02d}" for i in range(1, 13)]


def test_notebooks_are_up_to_date_with_their_sources():
    r = subprocess.run([sys.executable, str(NOTEBOOKS / "build.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_build_check_sees_a_stale_notebook(tmp_path):
    """--check must fail when a notebook's cell differs from its source (the check can fail)."""
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        import build
    finally:
        sys.path.remove(str(NOTEBOOKS))
    nb = build.with_ids(build.notebook(SOURCES[0]), SOURCES[0].stem)
    changed = json.loads(json.dumps(nb))
    changed["cells"][-1]["source"] = ["print('edited by hand')\n"]
    assert build._cells_only(nb) != build._cells_only(changed)
    with_outputs = json.loads(json.dumps(nb))
    with_outputs["cells"][-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["x\n"]}]
    assert build._cells_only(nb) == build._cells_only(with_outputs)  # outputs do not make a notebook stale


def test_every_gpu_cell_is_guarded():
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        gpu = [c for c in nb["cells"] if "gpu" in c.get("metadata", {}).get("tags", [])]
        assert gpu, f"{path.name} has no GPU cell"
        for c in gpu:
            src = "".join(c["source"])
            assert src.startswith('if not GPU:\n    print("needs a GPU: '), f"{path.name}: unguarded GPU cell"


def _kernel_available() -> str | None:
    for mod in ("nbclient", "nbformat", "ipykernel"):
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not importable: pip install 'cugraphlab[test]'"
    return None


@pytest.mark.skipif(_kernel_available() is not None, reason=str(_kernel_available()))
@pytest.mark.skipif(_gpu_present(), reason="a GPU is present: notebooks/run_all.sh executes them with outputs")
@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_without_a_gpu_and_each_gpu_cell_says_so(path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    env_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    monkeypatch.setenv("PYTHONPATH", env_path)  # the kernel imports this checkout's cugraphlab
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name} cell {i}: {errors[0].ename}: {errors[0].evalue}"
        if "gpu" in cell.metadata.get("tags", []):
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            assert text.startswith("needs a GPU: ") and text.count("\n") == 1, \
                f"{path.name} cell {i}: expected one 'needs a GPU' line, got {text!r}"
