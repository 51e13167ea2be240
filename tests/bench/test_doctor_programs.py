"""benchmarks/doctor_programs.py and doctor_trees.py without a GPU: a notebook becomes a plain script (no pip setup,
no shell or magic lines), every course notebook converts and compiles, a program runs under the doctor in a fresh
process and its report is read back, findings are counted against INTENDED, and the before/after child imports the
cugraphlab of the tree it is given."""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name, file=None):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{file or name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


programs = _load("doctor_programs")
trees = _load("doctor_trees")


def _nb(*cells):
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": kind, "metadata": {}, "source": src} for kind, src in cells]}


def test_a_notebook_becomes_its_code_cells_without_the_pip_setup_and_magic_lines(tmp_path):
    nb = _nb(("markdown", "# title\nprint('not code')"),
             ("code", ["# Setup 1/2: install\n", "import subprocess\n", "raise SystemExit('pip setup ran')\n"]),
             ("code", "x = 3\n!pip install something\n  %timeit x\nif x:\n    y = x * 2"),
             ("code", "%%bash\necho hi"),
             ("code", "%matplotlib inline"),
             ("code", "print('y is', y)"))
    script = programs.notebook_script(nb, "t.ipynb")
    assert "Setup 1/2" not in script and "pip" not in script.split("# ---- cell")[1:][0]
    assert "%" not in "".join(script.split("# ---- cell")[1:]) and "!pip" not in script and "echo hi" not in script
    assert script.count("# ---- cell") == 2  # the magic-only cells leave nothing
    path = tmp_path / "t.py"
    path.write_text(script)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "y is 6"


def test_a_cell_that_is_not_python_fails_naming_the_notebook():
    with pytest.raises(SyntaxError) as e:
        programs.notebook_script(_nb(("code", "def f(:\n    pass")), "broken.ipynb")
    assert e.value.filename == "broken.ipynb"


def test_the_prelude_stands_in_for_ipython_where_it_is_missing(tmp_path):
    script = programs.notebook_script(_nb(("code", "from IPython.display import Image, display\n"
                                                   "display(Image(data=b'png'))\nprint('shown', Image(data=b'x').data)")))
    path = tmp_path / "s.py"
    path.write_text("import sys\nsys.modules['IPython'] = None\n" + script)  # IPython unimportable
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "shown b'x'"


def test_every_course_notebook_converts_and_with_the_examples_makes_at_least_30_programs(tmp_path):
    nbs, exs = programs.notebooks(), programs.examples()
    course = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in nbs] == course  # one solutions twin per course notebook
    assert all("doctor" not in p.name for p in exs) and len(exs) >= 10
    assert len(nbs) + len(exs) >= 30
    for p in nbs:
        script = programs.write_script(p, tmp_path).read_text()
        assert "COURSE_SOURCE" not in script and "# Setup 2/2" in script, p.name  # no pip setup
        assert "SOLUTIONS = True" in script, p.name  # the checks fail on an unanswered exercise


def test_intended_names_real_programs_and_classes_each_with_a_reason():
    from cugraphlab.graphs.doctor.findings import MISTAKES

    names = {p.name for p in programs.notebooks() + programs.examples()}
    for program, kinds in programs.INTENDED.items():
        assert program in names, program
        for kind, why in kinds.items():
            assert kind in MISTAKES and why.strip(), (program, kind)


def _run(kind="notebook", program="06_capture_doctor.ipynb", code=0, findings=(), hazards=()):
    return {"program": program, "kind": kind, "code": code, "captures": 2, "findings": list(findings),
            "hazards": list(hazards), "failed": 0, "seconds": 1.0}


def test_findings_outside_intended_are_false_alarms_of_captures_and_of_the_replay_watch():
    runs = [_run(findings=["sync: a synchronizing call: cuStreamSynchronize(...) at nb:3"]),  # intended in 06
            _run(program="02_capture_replay.ipynb", findings=["sync: a synchronizing call: x at y"]),
            _run("example", "04_update.py", hazards=["update_refused: an exec update: z at w"]),  # intended
            _run("example", "02_capture.py", hazards=["input_race: written on another stream: a at b"]),
            _run("example", "01_eager.py", code=1)]
    assert programs.unintended(runs[0]) == [] and programs.unintended(runs[2]) == []
    assert programs.unintended(runs[1]) == ["sync: a synchronizing call: x at y"]
    assert programs.unintended(runs[3]) == ["input_race: written on another stream: a at b"]
    c = programs.counts(runs)
    assert c == {"examples": 3, "notebooks": 2, "programs": 5, "with_findings": 2, "false_alarms": 2, "exit_0": 4}
    line = programs.counts_line(c)
    assert "3 examples + 2 notebooks = 5 programs" in line and "programs with findings 2 of 5" in line


def test_a_program_runs_under_the_doctor_in_a_fresh_process(tmp_path):
    ok = tmp_path / "ok.py"
    ok.write_text("import cugraphlab\nprint('ran')\n")
    bad = tmp_path / "bad.py"
    bad.write_text("raise ValueError('on purpose')\n")
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(30)\n")
    r = programs.run_program(ok, "example")
    assert (r["program"], r["kind"], r["code"], r["captures"], r["findings"], r["hazards"]) == \
        ("ok.py", "example", 0, 0, [], [])
    assert r["seconds"] > 0 and "error" not in r
    r = programs.run_program(bad, "example")
    assert r["code"] == 1 and "ValueError: on purpose" in r["error"]
    r = programs.run_program(slow, "example", timeout=3)
    assert r["code"] is None and r["error"].startswith("timed out after 3 s")


def test_a_converted_notebook_runs_to_the_end_under_the_doctor_without_a_gpu(tmp_path):
    nb = next(p for p in programs.notebooks() if p.name.startswith("02_"))
    r = programs.run_program(nb, "notebook", programs.write_script(nb, tmp_path), timeout=240)
    assert r["program"] == nb.name and r["code"] == 0, r.get("error")
    assert r["findings"] == [] and r["hazards"] == []


def test_the_report_line_is_found_among_the_programs_output():
    report = {"code": 0, "captures": 1, "findings": [], "hazards": [], "failed": 0}
    assert programs.parse_report("noise\n@@DOCTOR@@" + json.dumps(report) + "\nmore") == report
    assert programs.parse_report("no report") is None


def _overhead(cp, ce, rp, re):
    return {"capture_plain": {"median": cp}, "capture_explained": {"median": ce},
            "replay_plain": {"median": rp}, "replay_explained": {"median": re}}


def test_ratios_and_the_one_run_verdict():
    r = trees.ratios(_overhead(100.0, 700.0, 2.0, 2.1))
    assert r["capture_ratio"] == pytest.approx(7.0) and r["replay_ratio"] == pytest.approx(1.05)
    runs = [{"who": w, "round": n, **trees.ratios(_overhead(100.0, ce, 2.0, re))}
            for n, (w, ce, re) in enumerate([("today", 600.0, 2.0), ("before", 800.0, 2.2),
                                             ("today", 620.0, 2.02), ("before", 780.0, 2.1)])]
    line = trees.verdict(runs)
    assert "capture_ratio today 6.100 vs before 7.900 (same or less today)" in line
    assert "replay_ratio today 1.005 vs before 1.075" in line
    assert "not measured in both trees" in trees.verdict(runs[:1])
    rows = trees.compare_rows(runs + [{"who": "before", "round": 3, "error": "exit 1"}])
    assert rows[0][2:4] == ["100.0 / 600.0", "6.00"] and rows[-1][2] == "error"


def test_the_child_imports_the_cugraphlab_of_the_tree_it_is_given(tmp_path, monkeypatch):
    tree = tmp_path / "before"
    (tree / "cugraphlab" / "bench").mkdir(parents=True)
    (tree / "cugraphlab" / "__init__.py").write_text("")
    (tree / "cugraphlab" / "bench" / "__init__.py").write_text("")
    (tree / "cugraphlab" / "bench" / "doctor.py").write_text(
        "class R:\n    pass\n"
        "def run_doctor(device, samples=31):\n"
        "    r = R()\n"
        "    r.overhead = {'capture_plain': {'median': 10.0 + device}, 'capture_explained': {'median': 50.0},\n"
        "                  'replay_plain': {'median': 2.0}, 'replay_explained': {'median': samples / 10}}\n"
        "    return r\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = trees.measure_tree(tree, 0, 21)
    assert pathlib.Path(r["tree"]).resolve() == (tree / "cugraphlab" / "__init__.py").resolve(), r
    assert r["capture_ratio"] == pytest.approx(5.0) and r["replay_ratio"] == pytest.approx(1.05)
    broken = tmp_path / "empty"
    broken.mkdir()
    assert trees.measure_tree(broken, 0, 21)["error"].startswith("exit 1")


def _doctor_script():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return _load("doctor_bench_script", "doctor")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


class _Record:
    cases = [{"named": True}, {"named": True}]
    restored_all, false_alarms, ok = True, 0, True
    overhead = {"capture_plain": {"median": 140.0}, "capture_explained": {"median": 910.0},
                "replay_plain": {"median": 2.0}, "replay_explained": {"median": 2.1}, "explain_us_per_call": 12.0}

    def to_dict(self):
        return {"kind": "cugraphlab.doctor"}


@pytest.mark.parametrize("alarm", [False, True])
def test_the_script_prints_the_ratios_the_counts_and_the_before_after_and_fails_on_a_false_alarm(
        tmp_path, monkeypatch, capsys, alarm):
    doctor = _doctor_script()
    runs = [_run("example", "02_capture.py", hazards=["input_race: x: a at b"] if alarm else []),
            _run(findings=["sync: a synchronizing call: c at d"])]
    monkeypatch.setattr(doctor, "require_gpu", lambda *a: None)
    monkeypatch.setattr(doctor, "measure_doctor", lambda device, samples: _Record())
    monkeypatch.setattr(doctor, "render_doctor", lambda record: "(the gallery)")
    monkeypatch.setattr(doctor, "run_all", lambda **kw: runs)
    seen = {}

    def fake_before_after(before, device, samples):
        seen["before"] = before
        return [{"who": w, "round": 1, **trees.ratios(_overhead(100.0, ce, 2.0, 2.0))}
                for w, ce in (("today", 600.0), ("before", 700.0))]
    monkeypatch.setattr(doctor, "before_after", fake_before_after)
    (tmp_path / "old" / "cugraphlab").mkdir(parents=True)
    monkeypatch.setenv("CGL_BEFORE", str(tmp_path / "old"))
    monkeypatch.setattr(sys, "argv", ["doctor.py", str(tmp_path / "d.json")])
    assert doctor.main() == (1 if alarm else 0)
    out = capsys.readouterr().out
    assert "doctor overhead, this run, explained/plain: capture 6.50 (140.0 / 910.0 us, host clock), replay 1.050" in out
    assert "capture_ratio today 6.000 vs before 7.000 (same or less today)" in out
    assert seen["before"] == (tmp_path / "old").resolve()
    assert f"programs with findings {int(alarm)} of 2" in out
    assert "intended by the lesson: 06_capture_doctor.ipynb: sync" in out
    assert ("FALSE ALARM? 02_capture.py: input_race" in out) == alarm
    saved = json.loads((tmp_path / "d.json").read_text())
    assert saved["program_counts"]["false_alarms"] == int(alarm) and len(saved["overhead_before_after"]) == 2
