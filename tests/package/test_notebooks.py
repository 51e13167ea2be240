"""The course notebooks (notebooks/) and their solutions (notebooks/solutions/): up to date with their sources,
in the course's order, runnable top to bottom without a GPU, and honest about what they quote.

Without a GPU every cell tagged "gpu" must print exactly its one "needs a GPU: ..." line and nothing fails; the
CPU cells (setup, CUDA sources, NVRTC compiles, NumPy references, the exercises that need no GPU) run as they are;
every cell tagged "record" draws its committed H200 record (benchmarks/results/...), and what it prints is what the
committed notebook holds (notebooks/fill_records.py writes it). A figure a markdown cell quotes (a number with a
unit of time, a percentage, a ratio) must appear in what the notebook's record cells print: numbers of a live run
change with every run, so the prose never quotes them (the code cells print them with their comparisons). On the
H200 benchmarks/notebooks_h200.sh (notebooks/run_all.sh) executes them all with outputs (the lead's GPU run).
"""
from __future__ import annotations

import ast
import importlib
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
SOLUTION_SOURCES = sorted((NOTEBOOKS / "src" / "solutions").glob("[0-9][0-9]_*.py"))
COURSE = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SOLUTIONS = sorted((NOTEBOOKS / "solutions").glob("[0-9][0-9]_*.ipynb"))
RECORDS = [ROOT / "benchmarks" / "results" / f"2026-12-01_H200_round{n}" for n in (6, 5, 4, 3)]  # newest first
#: The course's order (issue 26): the basics, debugging early, then cost and scale, then the node kinds, pitfalls
#: last before the capstone. 09 is kept for the "measure your own kernel" lesson (issue 25), which lands later.
ORDER = ["01_launch_overhead", "02_capture_replay", "03_node_by_node", "04_fork_join", "05_update",
         "06_capture_doctor", "07_unroll_payoff", "08_scaling", "10_conditional_nodes", "11_device_launch",
         "12_pdl", "13_other_nodes", "14_memory_nodes", "15_pitfalls", "16_capstone_mlp"]
SLOT = "09"
WITHOUT_RECORDS = {"16"}  # the capstone: its CPU cells (sources, NVRTC, NumPy) show what it does without a GPU
WITH_PICTURES = {"02", "08"}  # their record cells draw a report.plots figure
RECORD_LINES = 13  # "at most about 12 lines" (issue 26): the file line, then what was picked
NUMBER = r"\d[\d,]*(?:\.\d+)?"
QUOTED = [re.compile(rf"(?<![\w.^/])({NUMBER})(?:\s*(?:-|–|to)\s*({NUMBER}))?\s*(?:µs|us|ms|ns|%)(?![\w])"),
          re.compile(r"(?<![\w.^/])(\d+\.\d+)\s*[x×](?![\w])")]
#: The names a notebook may take from the top of the package (PLAN.md's public API); everything else comes from a
#: subpackage's __all__ (cugraphlab.core, .graphs, .experiment, .bench) or a cugraphlab.report module.
TOP = {"__version__", "Device", "DeviceArray", "Stream", "Event", "compile_source", "Module", "Kernel", "Launch",
       "LaunchConfig", "PackedArgs", "grid_for", "cu", "driver_module", "tracing", "Graph", "GraphExec", "capture",
       "Chain", "reference", "compare_bits", "Record", "load_record", "diff_records", "measure", "CugraphlabError",
       "CudaError", "CompileError", "CaptureError", "NoDeviceError", "InvalidArgumentError", "UnsupportedError",
       "DeviceMemoryError", "MissingDriverFunctionError"}


def _build():
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        import build
    finally:
        sys.path.remove(str(NOTEBOOKS))
    return build


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _tagged(path, tag):
    return [c for c in _cells(path) if tag in c.get("metadata", {}).get("tags", [])]


def _text(cell) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _gpu_present() -> bool:
    try:
        import cugraphlab as cgl

        return cgl.core.device_count() > 0
    except Exception:
        return False


# --- order, sources, build -------------------------------------------------------------------------------------
def test_the_course_in_its_order_with_a_slot_for_measuring_your_own_kernel():
    have = [p.stem for p in SOURCES if not p.stem.startswith(SLOT + "_")]
    assert have == ORDER
    assert [p.stem for p in COURSE if not p.stem.startswith(SLOT + "_")] == ORDER


def test_notebooks_are_up_to_date_with_their_sources():
    r = subprocess.run([sys.executable, str(NOTEBOOKS / "build.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_build_check_sees_a_stale_notebook():
    """--check must fail when a notebook's cell differs from its source (the check can fail)."""
    build = _build()
    nb = build.with_ids(build.notebook(SOURCES[0]), SOURCES[0].stem)
    changed = json.loads(json.dumps(nb))
    changed["cells"][-1]["source"] = ["print('edited by hand')\n"]
    assert build._cells_only(nb) != build._cells_only(changed)
    with_outputs = json.loads(json.dumps(nb))
    with_outputs["cells"][-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["x\n"]}]
    assert build._cells_only(nb) == build._cells_only(with_outputs)  # outputs do not make a notebook stale


def test_every_notebook_opens_with_its_colab_badge():
    repo = _build().read_repo()
    for path in COURSE + SOLUTIONS:
        first = _cells(path)[0]
        assert first["cell_type"] == "markdown" and "colab" in first["metadata"].get("tags", [])
        where = path.relative_to(ROOT)
        assert f"colab.research.google.com/github/{repo}/blob/main/{where}" in "".join(first["source"])


def test_colab_fills_readme_table_badges_setup_and_source_from_one_file(tmp_path, monkeypatch):
    """build.py --colab OWNER/REPO [--source URL] rewrites the README table, every badge and the setup cell's
    install source; --check then passes, and fails once the value changes again (in a copy: the checkout is not
    touched)."""
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
        code = "".join("".join(c["source"]) for c in json.loads((here / f"{src.stem}.ipynb").read_text())["cells"])
        assert "COURSE_REPO = 'alice/gpu-course'" in code
        assert "COURSE_SOURCE = 'git+https://github.com/alice/gpu-course'" in code
    assert "OWNER/REPO/blob" not in text
    assert build.main(["--check"]) == 0
    (here / "colab_repo.txt").write_text("bob/other\n")
    assert build.main(["--check"]) == 1  # the badges and the table still say alice/gpu-course
    assert build.main(["--colab", "alice/gpu-course", "--source", "https://example.org/cugraphlab-0.1.0-py3-none-any.whl"]) == 0
    nb = json.loads((here / f"{SOURCES[0].stem}.ipynb").read_text())
    assert "COURSE_SOURCE = 'https://example.org/cugraphlab-0.1.0-py3-none-any.whl'" in \
        "".join("".join(c["source"]) for c in nb["cells"])


@pytest.mark.parametrize("bad", ["alice", "OWNER/REPO", "a/b/c", "../x", "al ice/x"])
def test_colab_refuses_what_is_not_a_repository(bad, tmp_path, monkeypatch):
    build = _build()
    monkeypatch.setattr(build, "REPO_FILE", tmp_path / "colab_repo.txt")
    with pytest.raises(SystemExit) as e:
        build.main(["--colab", bad])
    assert e.value.code == 2 and not (tmp_path / "colab_repo.txt").exists()


def test_placeholder_repo_leaves_colab_fetching_and_installing_off():
    build = _build()
    nb = build.notebook(SOURCES[0], build.PLACEHOLDER)
    code = "".join("".join(c["source"]) for c in nb["cells"])
    assert "COURSE_REPO = None" in code and "COURSE_SOURCE = None" in code and "@COURSE_" not in code


def test_rebuild_keeps_outputs_of_cells_that_moved(tmp_path, monkeypatch):
    """A cell inserted above shifts the ids; build.py finds the outputs of unchanged cells by their source, and
    drops the outputs of a cell whose source changed."""
    build = _build()
    src = SOURCES[0]
    old = build.with_ids(build.notebook(src), src.stem)
    code = [c for c in old["cells"] if c["cell_type"] == "code"]
    code[-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["kept\n"]}]
    code[-2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["stale\n"]}]
    code[-2]["source"] = ["print('an older version of the cell')\n"]
    old["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": ["a cell that is gone\n"]})
    for i, c in enumerate(old["cells"]):
        c["id"] = f"{src.stem[:2]}-{i:02d}"
    path = tmp_path / f"{src.stem}.ipynb"
    path.write_text(json.dumps(old))
    new = build.with_ids(build.notebook(src), src.stem)
    build.keep_outputs(new, path)
    code = [c for c in new["cells"] if c["cell_type"] == "code"]
    assert code[-1]["outputs"][0]["text"] == ["kept\n"]
    assert code[-2]["outputs"] == []


def test_a_gpu_note_that_would_break_its_print_is_refused():
    build = _build()
    with pytest.raises(ValueError, match="double quote"):
        build.gpu_code([], 'prints "this"', "pass")


# --- cells: guards, exercises, solutions -------------------------------------------------------------------------
def test_every_gpu_cell_is_guarded():
    for path in COURSE + SOLUTIONS:
        gpu = _tagged(path, "gpu")
        assert gpu, f"{path.name} has no GPU cell"
        for c in gpu:
            src = "".join(c["source"])
            assert src.startswith('if not GPU:\n    print("needs a GPU: '), f"{path.name}: unguarded GPU cell"
            ast.parse(src)


def test_every_code_cell_parses():
    for path in COURSE + SOLUTIONS:
        for i, c in enumerate(_cells(path)):
            if c["cell_type"] == "code":
                try:
                    ast.parse("".join(c["source"]))
                except SyntaxError as e:
                    pytest.fail(f"{path.relative_to(ROOT)} cell {i}: {e}")


def test_two_or_three_exercises_per_notebook_each_with_a_check_and_a_solution():
    build = _build()
    solved = {p.name for p in SOLUTION_SOURCES}
    for src in SOURCES:
        found = build.exercises(build.parse(src.read_text()))
        assert 2 <= len(found) <= 3, f"{src.name}: {len(found)} exercises"
        assert src.name in solved, f"{src.name} has no solutions source"
    for path in SOLUTIONS:
        code = [c for c in _cells(path) if c["cell_type"] == "code"]
        assert any("SOLUTIONS = True" in "".join(c["source"]) for c in code), path.name
        assert not _tagged(path, "exercise"), f"{path.name} still holds an exercise stub"
        n_checks = len(_tagged(path, "check"))
        assert n_checks == len(_tagged(NOTEBOOKS / path.name, "check")) and n_checks >= 2, path.name


def test_a_solutions_source_must_solve_every_exercise(tmp_path, monkeypatch):
    build = _build()
    src = SOLUTION_SOURCES[0]
    cells = build.parse(src.read_text())
    partial = "\n".join(f"# %% [{c['tag']}] {c['note']}".rstrip() + "\n" + "\n".join(c["lines"])
                        for c in cells if c["role"] != "solution" or c["n"] != 1)
    fake = tmp_path / "solutions" / src.name
    fake.parent.mkdir()
    fake.write_text(partial)
    monkeypatch.setattr(build, "SRC", NOTEBOOKS / "src")
    with pytest.raises(ValueError, match="no solution for exercise"):
        build.solutions_notebook(fake, build.PLACEHOLDER)


# --- records and the figures the prose quotes --------------------------------------------------------------------
def test_every_notebook_but_the_capstone_has_a_record_cell_reading_a_committed_record():
    for path in COURSE:
        cells = _tagged(path, "record")
        if path.stem[:2] in WITHOUT_RECORDS:
            continue
        assert cells, f"{path.name}: no record cell (a reader without a GPU must see the H200's results)"
        for c in cells:
            names = re.findall(r'(?:show_record|h200_record)\("([a-z_0-9]+)"', "".join(c["source"]))
            assert names, f"{path.name}: a record cell that reads no record"
            for name in names:
                assert any((r / f"2026-12-01_H200_{name}.json").is_file() for r in RECORDS), \
                    f"{path.name}: no record {name}"


def test_committed_record_cells_are_short_and_hold_no_project_goals():
    for path in COURSE + SOLUTIONS:
        for c in _tagged(path, "record"):
            text = _text(c)
            assert text.startswith("H200 record: benchmarks/results/2026-12-01_H200_round"), \
                f"{path.relative_to(ROOT)}: record cell without its committed output: python3 notebooks/fill_records.py"
            lines = text.rstrip("\n").count("\n") + 1
            assert 2 <= lines <= RECORD_LINES, f"{path.relative_to(ROOT)}: a record cell prints {lines} lines"
            assert not re.search(r"\bgoals?\b|NOT met", text, re.I), f"{path.relative_to(ROOT)}: a goal in {text!r}"
            if path.stem[:2] in WITH_PICTURES:
                assert any("image/png" in o.get("data", {}) for o in c["outputs"]), f"{path.name}: no figure"


def quoted_figures(markdown: str) -> list[str]:
    """The numbers a markdown text quotes with a unit of time, a percentage or a ratio ("5.28 to 11.43 µs": both)."""
    found = []
    for pattern in QUOTED:
        for m in pattern.finditer(markdown):
            found += [g for g in m.groups() if g]
    return found


def test_quoted_figures_are_found_in_the_text_they_come_from():
    assert quoted_figures("from 4.99 to 11.52 µs, +8% and 2.13x; 0.81-0.93 us; 4 x cuLaunchKernel, 16 x 16") == \
        ["4.99", "11.52", "8", "0.81", "0.93", "2.13"]


def test_every_figure_a_markdown_cell_quotes_is_printed_by_a_record_cell_of_its_notebook():
    """Issue 26 section 2: the numbers in the prose come from the output. Live measurements differ from run to
    run, so only what a record cell prints (a committed H200 record, the same on every machine) may be quoted."""
    problems = []
    for path in COURSE + SOLUTIONS:
        cells = _cells(path)
        printed = " ".join(_text(c) for c in cells if "record" in c.get("metadata", {}).get("tags", []))
        tokens = set(re.findall(NUMBER, printed))
        for i, c in enumerate(cells):
            if c["cell_type"] != "markdown":
                continue
            for figure in quoted_figures("".join(c["source"])):
                if figure not in tokens:
                    problems.append(f"{path.relative_to(ROOT)} cell {i}: quotes {figure}, which no record cell prints")
    assert not problems, "\n".join(problems)


# --- the public API only -------------------------------------------------------------------------------------------
def _code_of(path) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "code")


def test_notebooks_use_only_the_public_api():
    """cgl.X only for PLAN.md's top-level names; `from cugraphlab.SUB import ...` only of SUB's __all__ (or a
    report module); never a private module (cugraphlab.core._calls, a leading underscore)."""
    problems = []
    for path in COURSE + SOLUTIONS:
        tree = ast.parse(_code_of(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "cgl":
                if node.attr not in TOP:
                    problems.append(f"{path.name}: cgl.{node.attr} is not a top-level public name")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cugraphlab"):
                parts = node.module.split(".")
                if any(p.startswith("_") for p in parts):
                    problems.append(f"{path.name}: imports the private {node.module}")
                elif len(parts) == 1:
                    bad = [a.name for a in node.names if a.name not in TOP]
                    problems += [f"{path.name}: from cugraphlab import {n} (not top-level public)" for n in bad]
                elif len(parts) == 2 and parts[1] in ("core", "graphs", "experiment", "bench"):
                    module = importlib.import_module(node.module)
                    bad = [a.name for a in node.names if a.name not in module.__all__]
                    problems += [f"{path.name}: {n} is not in {node.module}.__all__" for n in bad]
                elif parts[1] != "report":
                    problems.append(f"{path.name}: imports {node.module} (use its subpackage's __all__)")
    assert not problems, "\n".join(sorted(set(problems)))


# --- executed without a GPU ---------------------------------------------------------------------------------------
def _kernel_available() -> str | None:
    for mod in ("nbclient", "nbformat", "ipykernel"):
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not importable: pip install 'cugraphlab[test]'"
    return None


def _execute(path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    env_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    monkeypatch.setenv("PYTHONPATH", env_path)  # the kernel imports this checkout's cugraphlab
    client = NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def _check_cpu_run(path, nb):
    committed = {c.get("id"): c for c in _cells(path)}
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
        if "record" in tags:  # what it prints now is what the committed notebook holds
            assert text == _text(committed[cell.get("id")]), \
                f"{path.name} cell {i}: the committed output of this record cell is stale: python3 notebooks/fill_records.py"
        if "check" in tags and "gpu" not in tags:
            solved = path.parent.name == "solutions"
            assert ("passed" if solved else "not answered yet") in text, f"{path.name} cell {i}: {text!r}"


_SKIP_RUN = [pytest.mark.skipif(_kernel_available() is not None, reason=str(_kernel_available())),
             pytest.mark.skipif(_gpu_present(), reason="a GPU is present: notebooks/run_all.sh executes them with outputs")]


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.stem)
def test_notebook_runs_without_a_gpu_and_each_gpu_cell_says_so(path, monkeypatch):
    for mark in _SKIP_RUN:
        if mark.args[0]:
            pytest.skip(mark.kwargs["reason"])
    _check_cpu_run(path, _execute(path, monkeypatch))


def _bindings_major() -> int:
    try:
        from cuda.bindings import driver

        return driver.CUDA_VERSION // 1000
    except Exception:
        return 0


@pytest.mark.skipif(_bindings_major() == 12, reason="the solutions run without a GPU once, in CI's cuda-bindings 13 "
                                                    "step: they are the course notebooks' cells plus the solutions")
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_solutions_run_without_a_gpu_and_every_cpu_check_passes(path, monkeypatch):
    for mark in _SKIP_RUN:
        if mark.args[0]:
            pytest.skip(mark.kwargs["reason"])
    _check_cpu_run(path, _execute(path, monkeypatch))
