"""The course notebooks (notebooks/): up to date with their sources, and runnable top to bottom without a GPU.

Without a GPU every cell tagged "gpu" must print exactly its one "needs a GPU: ..." line and nothing fails; the
CPU cells (install check, setup, the drawing fallback) run as they are, and every cell tagged "record" draws its
committed H200 record (benchmarks/results/...) with the report functions. On the H200
benchmarks/notebooks_h200.sh (notebooks/run_all.sh) executes them with outputs (the lead's GPU run).
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted((NOTEBOOKS / "src").glob("[0-9][0-9]_*.py"))
RECORDS = [ROOT / "benchmarks" / "results" / f"2026-12-01_H200_round{n}" for n in (4, 3)]  # newest first
# the notebooks whose measurement needs a GPU and that draw the committed H200 record of the same measurement
WITH_RECORDS = {"01", "02", "06", "07", "09", "10", "11", "12", "13"}
WITH_PICTURES = {"02", "13"}  # their record cells draw a report.plots figure


def _build():
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        import build
    finally:
        sys.path.remove(str(NOTEBOOKS))
    return build


def _tagged(path, tag):
    nb = json.loads(path.read_text())
    return [c for c in nb["cells"] if tag in c.get("metadata", {}).get("tags", [])]


def _gpu_present() -> bool:
    try:
        import cugraphlab as cgl

        return cgl.core.device_count() > 0
    except Exception:
        return False


def test_the_course_has_its_fourteen_notebooks_pitfalls_last():
    assert [p.stem[:2] for p in SOURCES] == [f"{i:02d}" for i in range(1, 15)]
    assert SOURCES[-1].stem == "14_pitfalls"
    assert {"12_capture_doctor", "13_scaling"} <= {p.stem for p in SOURCES}


def test_record_cells_draw_committed_records_that_exist():
    """The notebooks named in WITH_RECORDS have a record cell, and each names a committed record file."""
    have = set()
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for c in _tagged(path, "record"):
            have.add(path.stem[:2])
            names = re.findall(r'h200_record\("([a-z_0-9]+)"', "".join(c["source"]))
            assert names, f"{path.name}: a record cell that reads no record"
            for name in names:
                assert any((r / f"2026-12-01_H200_{name}.json").is_file() for r in RECORDS), \
                    f"{path.name}: no record {name}"
    assert have == WITH_RECORDS


def test_every_notebook_opens_with_its_colab_badge():
    repo = _build().read_repo()
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        first = json.loads(path.read_text())["cells"][0]
        assert first["cell_type"] == "markdown" and "colab" in first["metadata"].get("tags", [])
        assert f"colab.research.google.com/github/{repo}/blob/main/notebooks/{path.name}" in "".join(first["source"])


def test_colab_fills_readme_table_badges_and_setup_from_one_value(tmp_path, monkeypatch):
    """build.py --colab OWNER/REPO rewrites the README table and every badge; --check then passes, and fails once
    the value changes again (in a copy: the checkout is not touched)."""
    build = _build()
    here = tmp_path / "notebooks"
    here.mkdir()
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    monkeypatch.setattr(build, "HERE", here)
    monkeypatch.setattr(build, "README", readme)
    monkeypatch.setattr(build, "REPO_FILE", here / "colab_repo.txt")
    assert build.main(["--colab", "alice/gpu-course"]) == 0
    text = readme.read_text()
    for src in SOURCES:
        url = f"https://colab.research.google.com/github/alice/gpu-course/blob/main/notebooks/{src.stem}.ipynb"
        assert f"[![Open In Colab]({build.BADGE})]({url})" in text
        assert f"](notebooks/{src.stem}.ipynb)" in text  # the link relative to the repository
        nb = json.loads((here / f"{src.stem}.ipynb").read_text())
        assert url in "".join(nb["cells"][0]["source"])
        assert "COLAB_REPO = 'alice/gpu-course'" in "".join("".join(c["source"]) for c in nb["cells"])
    assert "OWNER/REPO/blob" not in text
    assert build.main(["--check"]) == 0
    (here / "colab_repo.txt").write_text("bob/other\n")
    assert build.main(["--check"]) == 1  # the badges and the table still say alice/gpu-course


@pytest.mark.parametrize("bad", ["alice", "OWNER/REPO", "a/b/c", "../x", "al ice/x"])
def test_colab_refuses_what_is_not_a_repository(bad, tmp_path, monkeypatch, capsys):
    build = _build()
    monkeypatch.setattr(build, "REPO_FILE", tmp_path / "colab_repo.txt")
    with pytest.raises(SystemExit) as e:
        build.main(["--colab", bad])
    assert e.value.code == 2 and not (tmp_path / "colab_repo.txt").exists()


def test_placeholder_repo_leaves_colab_fetching_off():
    build = _build()
    nb = build.notebook(SOURCES[0], build.PLACEHOLDER)
    code = "".join("".join(c["source"]) for c in nb["cells"])
    assert "COLAB_REPO = None" in code and "@COLAB_REPO@" not in code


def test_rebuild_keeps_outputs_of_cells_that_moved(tmp_path, monkeypatch):
    """A cell inserted above shifts the ids; build.py finds the outputs of unchanged cells by their source, and
    drops the outputs of a cell whose source changed."""
    build = _build()
    here = tmp_path / "notebooks"
    here.mkdir()
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    monkeypatch.setattr(build, "HERE", here)
    monkeypatch.setattr(build, "README", tmp_path / "README.md")
    src = SOURCES[0]
    old = build.with_ids(build.notebook(src), src.stem)
    code = [c for c in old["cells"] if c["cell_type"] == "code"]
    code[-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["kept\n"]}]
    code[-2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["stale\n"]}]
    code[-2]["source"] = ["print('an older version of the cell')\n"]
    old["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": ["a cell that is gone\n"]})
    for i, c in enumerate(old["cells"]):
        c["id"] = f"{src.stem[:2]}-{i:02d}"
    (here / f"{src.stem}.ipynb").write_text(json.dumps(old))
    assert build.main([]) == 0
    new = [c for c in json.loads((here / f"{src.stem}.ipynb").read_text())["cells"] if c["cell_type"] == "code"]
    assert new[-1]["outputs"][0]["text"] == ["kept\n"]
    assert new[-2]["outputs"] == []


def test_notebooks_are_up_to_date_with_their_sources():
    r = subprocess.run([sys.executable, str(NOTEBOOKS / "build.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_build_check_sees_a_stale_notebook(tmp_path):
    """--check must fail when a notebook's cell differs from its source (the check can fail)."""
    build = _build()
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
        tags = cell.metadata.get("tags", [])
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        if "gpu" in tags:
            assert text.startswith("needs a GPU: ") and text.count("\n") == 1, \
                f"{path.name} cell {i}: expected one 'needs a GPU' line, got {text!r}"
        if "record" in tags:  # drew the committed H200 record from this checkout
            assert text.startswith("H200 record: benchmarks/results/2026-12-01_H200_round"), \
                f"{path.name} cell {i}: {text[:300]!r}"
            assert text.count("\n") > 5, f"{path.name} cell {i}: the record drew almost nothing: {text!r}"
            if path.stem[:2] in WITH_PICTURES and importlib.util.find_spec("matplotlib") is not None:
                assert any("image/png" in o.get("data", {}) for o in cell.outputs), \
                    f"{path.name} cell {i}: no figure"
