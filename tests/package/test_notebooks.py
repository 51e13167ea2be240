"""The course notebooks (notebooks/) and their solutions (notebooks/solutions/): up to date with their sources,
in the course's order, runnable top to bottom without a GPU, and honest about what they quote.

Running them without a GPU, from the wheel outside the checkout, is tests/package/test_course_setup.py's job (every
GPU cell prints its one "needs a GPU: ..." line, every record cell what the committed notebook holds); here: the
committed notebooks themselves, their cells' outputs bounded, and the setup cell's helpers. A figure a markdown cell quotes (a number with a
unit of time, a percentage, a ratio) must appear in what the notebook's record cells print: numbers of a live run
change with every run, so the prose never quotes them (the code cells print them with their comparisons). On the
H200 benchmarks/notebooks_h200.sh (notebooks/run_all.sh) executes them all with outputs (the lead's GPU run).
"""
from __future__ import annotations

import ast
import importlib
import json
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


def test_a_notebook_has_a_colab_badge_only_once_the_repository_is_set():
    """No link that points nowhere: with the placeholder repository no badge cell and no Colab column; once set,
    every notebook opens with its badge and nothing else in that cell (no instruction to the maintainer)."""
    build = _build()
    repo = build.read_repo()
    for path in COURSE + SOLUTIONS:
        first = _cells(path)[0]
        if repo == build.PLACEHOLDER:
            assert "colab" not in first["metadata"].get("tags", []), f"{path.name}: a badge for OWNER/REPO"
            assert "colab.research.google.com" not in path.read_text(), path.name
        else:
            assert first["cell_type"] == "markdown" and "colab" in first["metadata"].get("tags", [])
            where = path.relative_to(ROOT)
            assert "".join(first["source"]) == \
                f"[![Open In Colab]({build.BADGE})](https://colab.research.google.com/github/{repo}/blob/main/{where})"
    table = build.course_table(build.PLACEHOLDER)
    assert "colab" not in table.lower() and "OWNER/REPO" not in table
    nb = build.notebook(SOURCES[0], build.PLACEHOLDER)
    assert "colab" not in nb["cells"][0]["metadata"].get("tags", [])
    nb = build.notebook(SOURCES[0], "alice/gpu-course")
    assert "colab" in nb["cells"][0]["metadata"]["tags"]
    assert "OWNER" not in "".join(nb["cells"][0]["source"])
    # the cell ids do not move when the badge comes or goes (the committed outputs stay matched)
    with_badge = build.with_ids(build.notebook(SOURCES[0], "alice/gpu-course"), SOURCES[0].stem)
    without = build.with_ids(build.notebook(SOURCES[0], build.PLACEHOLDER), SOURCES[0].stem)
    assert [c["id"] for c in with_badge["cells"][1:]] == [c["id"] for c in without["cells"]]


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
        assert "colab" in json.loads((here / f"{src.stem}.ipynb").read_text())["cells"][0]["metadata"]["tags"]
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
    assert "COURSE_SOURCE = None" in code and "@COURSE_" not in code


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


# --- what the committed cells show ---------------------------------------------------------------------------
MAX_LINES, MAX_TEXT, MAX_BYTES = 80, 16 * 1024, 512 * 1024


def _output_size(cell) -> tuple[int, int, int]:
    """(lines, bytes of text, bytes in all) a committed cell shows: its streams and every displayed MIME type."""
    lines = text = total = 0
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            t = "".join(o.get("text", ""))
            lines, text, total = lines + t.count("\n"), text + len(t.encode()), total + len(t.encode())
        for mime, v in o.get("data", {}).items():
            t = "".join(v) if isinstance(v, list) else str(v)
            total += len(t.encode())
            if mime == "text/plain":
                lines, text = lines + t.count("\n") + 1, text + len(t.encode())
    return lines, text, total


def test_no_committed_cell_floods_the_page():
    """Issue 33 section 2: a record cell displayed its whole record (760 KB of repr and HTML, 24,693 lines of dict);
    every committed cell's output, stream and display data together, is bounded in lines and bytes, a record or check
    cell shows printed text only (no Out: value), and a displayed value's text is a short repr."""
    problems = []
    for path in COURSE + SOLUTIONS:
        for i, c in enumerate(_cells(path)):
            if c["cell_type"] != "code":
                continue
            where = f"{path.relative_to(ROOT)} cell {i}"
            lines, text, total = _output_size(c)
            if lines > MAX_LINES or text > MAX_TEXT or total > MAX_BYTES:
                problems.append(f"{where}: {lines} lines, {text:,} bytes of text, {total:,} bytes in all")
            tags = c.get("metadata", {}).get("tags", [])
            results = [o for o in c.get("outputs", []) if o.get("output_type") == "execute_result"]
            if results and ("record" in tags or "check" in tags):
                problems.append(f"{where}: a {'record' if 'record' in tags else 'check'} cell shows an Out: value")
            for o in c.get("outputs", []):
                plain = "".join(o.get("data", {}).get("text/plain", ""))
                if len(plain) > 1024:
                    problems.append(f"{where}: displays a {len(plain):,}-character repr")
    assert not problems, "\n".join(problems)


def test_the_bound_sees_a_flooding_cell():
    flood = {"cell_type": "code", "outputs": [{"output_type": "execute_result", "data": {
        "text/plain": ["{'rows': [" + "1, " * 6000 + "]}"], "text/html": ["<table>" + "<tr></tr>" * 90000]}}]}
    lines, text, total = _output_size(flood)
    assert text > MAX_TEXT and total > MAX_BYTES


def _setup_namespace():
    """The helpers of the setup cell (src/_setup.py, its second cell), importable here without running Setup 1/2."""
    build = _build()
    cells = build.setup_cells(build.PLACEHOLDER, None)
    ns = {"__name__": "course_setup"}
    exec(compile("\n".join(cells[1]["lines"]), "<setup 2/2>", "exec"), ns)
    return ns


def test_grade_returns_none_and_fails_only_for_a_wrong_answer(capsys):
    ns = _setup_namespace()
    capsys.readouterr()
    assert ns["grade"](1, None, lambda a: (True, "")) is None
    assert "not answered yet" in capsys.readouterr().out
    assert ns["grade"](1, 3, lambda a: (a == 3, f"got {a}")) is None
    assert "passed (got 3)" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="not right yet: got 4"):
        ns["grade"](1, 4, lambda a: (a == 3, f"got {a}"))
    ns["SOLUTIONS"] = True
    with pytest.raises(AssertionError, match="not answered"):
        ns["grade"](1, None, lambda a: (True, ""))


def test_show_record_prints_the_record_and_displays_nothing_more(capsys):
    """The record travels in the package; as a cell's last expression the returned record displays nothing (no
    HTML, no dict), yet its fields stay readable for the cells that use them."""
    ns = _setup_namespace()
    capsys.readouterr()
    rec = ns["show_record"]("measure_saxpy_2_20", "way", "eager")
    out = capsys.readouterr().out
    assert out.startswith("H200 record: benchmarks/results/2026-12-01_H200_round6/") and "eager" in out
    assert len(repr(rec)) < 120 and not hasattr(rec, "_repr_html_") and not hasattr(rec, "_repr_json_")
    rec._ipython_display_()  # what IPython calls instead of showing it: prints nothing
    assert capsys.readouterr().out == ""
    assert rec["eager"].host.median > 0 and rec.ways
    assert ns["show_record"]("no_such_record") is None
    assert "not in this cugraphlab" in capsys.readouterr().out


def test_a_pip_failure_shows_pips_own_error():
    """A git source that cannot be cloned: the cell shows git's message, not pip's "See above for output"."""
    build = _build()
    code = "\n".join(build.setup_cells(build.PLACEHOLDER, None)[0]["lines"])
    ns = {"__name__": "course_setup_1"}
    exec(compile(code.split("if setup_cugraphlab() is not None:")[0], "<setup 1/2>", "exec"), ns)
    stderr = """  error: subprocess-exited-with-error

  × git clone --filter=blob:none --quiet https://github.com/alice/nope /tmp/pip-req-build-x did not run successfully.
  │ exit code: 128
  ╰─> [2 lines of output]
      remote: Repository not found.
      fatal: repository 'https://github.com/alice/nope/' not found
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
error: subprocess-exited-with-error

× git clone --filter=blob:none --quiet https://github.com/alice/nope /tmp/pip-req-build-x did not run successfully.
│ exit code: 128
╰─> See above for output.
"""
    lines = ns["_pip_error"](stderr)
    assert "fatal: repository 'https://github.com/alice/nope/' not found" in lines
    assert "remote: Repository not found." in lines
    assert not any("See above" in line for line in lines)
    assert ns["_pip_error"]("ERROR: No matching distribution found for cuda-bindings>=99") == \
        ["ERROR: No matching distribution found for cuda-bindings>=99"]
    # pip's colours (the H200's offline pip ended its stderr with "\x1b[0m", which the cell once showed alone)
    coloured = "\x1b[31mERROR: Could not find a version that satisfies the requirement cupti-python==12.*\x1b[0m\n\x1b[0m\n"
    assert ns["_pip_error"](coloured) == ["ERROR: Could not find a version that satisfies the requirement "
                                          "cupti-python==12.*"]


def _setup_one(build):
    code = "\n".join(build.setup_cells(build.PLACEHOLDER, None)[0]["lines"])
    ns = {"__name__": "course_setup_1"}
    exec(compile(code.split("if setup_cugraphlab() is not None:")[0], "<setup 1/2>", "exec"), ns)
    return ns


def test_an_uploaded_wheel_whose_dependencies_cannot_be_fetched_is_not_told_to_upload_a_wheel(capsys):
    ns = _setup_one(_build())
    ns["_import_cugraphlab"] = lambda: (None, "ModuleNotFoundError: No module named 'cugraphlab'")
    ns["_checkout"] = lambda: None
    ns["_uploaded_wheel"] = lambda: "/content/cugraphlab-0.1.0-py3-none-any.whl"
    ns["_cuda_extra"] = lambda: ("cu12", "nvidia-smi: a driver for CUDA 12")
    ns["_pip"] = lambda args, what: False  # pip could not reach the package index
    ns["_torch_pins"] = lambda: []
    assert ns["setup_cugraphlab"]() is None
    out = capsys.readouterr().out
    assert "4. the uploaded wheel /content/cugraphlab-0.1.0-py3-none-any.whl" in out
    assert "could not install it with its dependencies" in out and "network" in out
    assert "upload a wheel" not in out
    ns["_uploaded_wheel"] = lambda: None  # nothing uploaded: then uploading one is the advice
    ns["setup_cugraphlab"]()
    assert "upload a wheel" in capsys.readouterr().out


def test_the_setup_says_what_the_install_did_to_torchs_cuda_wheels(capsys):
    """Colab's torch pins its CUDA wheels; the cu12 extra may move them: the cell names each that moved, and checks
    torch in a fresh process (here: the versions before and after are faked, torch's check fails)."""
    ns = _setup_one(_build())
    before = {"nvidia-cuda-nvrtc-cu12": "12.6.77", "nvidia-cuda-runtime-cu12": "12.6.77"}
    ns["_versions"] = lambda names: {"nvidia-cuda-nvrtc-cu12": "12.9.86", "nvidia-cuda-runtime-cu12": "12.6.77"}
    ns["sys"] = type("S", (), {"executable": "/nonexistent/python"})
    ns["_torch_after"](before)
    out = capsys.readouterr().out
    assert "nvidia-cuda-nvrtc-cu12 12.6.77 -> 12.9.86" in out and "nvidia-cuda-runtime-cu12" not in out.split("\n")[0]
    assert "torch after the install does NOT work" in out and "pip install nvidia-cuda-nvrtc-cu12==12.6.77" in out
