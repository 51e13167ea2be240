"""benchmarks/h200.sh without a GPU: it parses, lists its phases, refuses an unknown phase and a machine without a GPU
in one line (exit 2, nothing written), and every phase's dry run names only scripts that exist (or, for the scripts
other changes add, says in one line that it skips them). Each round's own script lies in its results folder."""
from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "h200.sh"

PHASES = ["gputests", "lifetime", "cu12", "run", "examples", "notebooks", "notebooks-cu12", "exercises", "measure", "diff", "nvbench",
          "nvbench-product", "cold-small", "launch-scaling", "plugin", "ci-recipe", "sanitize", "compare", "floor", "exec-update",
          "launch-modes", "graph-api", "host", "doctor-clean", "doctor-field", "doctor-payoff", "ratios"]
#: scripts that other changes of this round add: a phase runs them where present and skips them in one line
OPTIONAL = {"benchmarks/measure_overhead.py", "benchmarks/plugin_false_alarms.py", "benchmarks/diff_judges.py",
            "benchmarks/studies/nvbench/run.py", "benchmarks/notebooks_h200.sh",
            "benchmarks/studies/nvbench_product/product_side.py"}
ROUND_SCRIPTS = {"2026-12-01_H200_round3": ["h200_round3.sh", "sanitize_round3.sh"],
                 "2026-12-01_H200_round4": ["h200_round4.sh", "sanitize_round4.sh"],
                 "2026-12-01_H200_round5": ["h200_round5.sh"]}


def _bash(*args, env=None, cwd=ROOT):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def test_the_script_parses():
    r = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_list_names_every_phase_in_order_each_with_what_it_runs():
    r = _bash("--list")
    assert r.returncode == 0, r.stderr
    rows = [line.split("  ", 1) for line in r.stdout.splitlines()]
    assert [name for name, _ in rows] == PHASES
    assert all(len(what) > 20 for _, what in rows), rows


def test_list_works_from_any_folder():
    r = subprocess.run(["bash", "h200.sh", "--list"], capture_output=True, text=True, cwd=ROOT / "benchmarks")
    assert r.returncode == 0 and r.stdout.split()[0] == "gputests", r.stderr


@pytest.mark.parametrize("args", [[], ["run"], ["run", "a", "b"]])
def test_bad_usage_is_one_line_and_exit_2(args):
    r = _bash(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("h200.sh: usage:"), r.stderr


@pytest.mark.parametrize("phases", ["floors", "run,nope", "run,,examples", "exec_update"])
def test_an_unknown_phase_is_refused_in_one_line_before_anything_runs(tmp_path, phases):
    out = tmp_path / "out"
    r = _bash(phases, str(out))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("h200.sh: unknown phase '"), r.stderr
    assert "known: " + " ".join(PHASES) in lines[0]
    assert not out.exists()


def test_no_gpu_is_one_line_and_exit_2(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    smi = fake / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the driver' >&2\n"
                   "exit 9\n")
    smi.chmod(smi.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "out"
    r = _bash("gputests,run", str(out), env=env)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == ["h200.sh: no GPU found (nvidia-smi -L lists none): run it on the GPU machine"]
    assert not out.exists()


def _script_paths(text: str) -> set[str]:
    return set(re.findall(r"\b((?:benchmarks|examples|tests)/[\w/.-]+\.(?:py|sh))\b", text))


def test_every_script_the_runner_names_exists_or_is_one_another_change_adds():
    text = SCRIPT.read_text()
    missing = {p for p in _script_paths(text) if not (ROOT / p).is_file()} - OPTIONAL
    assert not missing, f"h200.sh names scripts that are not in the tree: {sorted(missing)}"
    for p in OPTIONAL:  # an optional script is only ever run through opt (which skips it when absent)
        for line in text.splitlines():
            if p in line and not line.lstrip().startswith("#") and "phase_" not in line:
                assert re.match(r"\s*opt \d+ ", line), f"{p} is run without opt: {line.strip()}"


@pytest.mark.parametrize("phase", PHASES)
def test_dry_run_of_each_phase_runs_only_what_exists(tmp_path, phase):
    env = dict(os.environ)
    env.pop("CGL_BEFORE", None)
    r = _bash("--dry-run", phase, str(tmp_path / "out"), env=env)
    assert r.returncode == 0, r.stderr
    steps = (tmp_path / "out" / f"{phase}_steps.log").read_text().splitlines()
    assert steps[0].startswith(f"== {phase} ")
    assert len(steps) > 1, f"phase {phase} has no step"
    for line in steps[1:]:
        name, _, what = line.partition(": ")
        assert name and what, line
        if what.startswith("skipped ("):
            skipped = re.search(r"\((\S+) is not in this tree\)", what)
            assert skipped and skipped.group(1) in OPTIONAL, line
            continue
        for p in _script_paths(what):
            assert (ROOT / p).is_file(), f"{phase}: {line}"


def test_run_phase_with_an_older_tree_alternates_before_and_after(tmp_path):
    before = tmp_path / "before"
    (before / "cugraphlab").mkdir(parents=True)
    env = dict(os.environ, CGL_BEFORE=str(before))
    r = _bash("--dry-run", "run", str(tmp_path / "out"), env=env)
    assert r.returncode == 0, r.stderr
    names = [line.split(":")[0] for line in (tmp_path / "out" / "run_steps.log").read_text().splitlines()[1:]]
    assert names == [f"run_{who}_{size}_{k}" for k in (1, 2) for who in ("before", "after")
                     for size in ("2_20", "1024")]


def test_each_round_script_lies_beside_its_results():
    for folder, names in ROUND_SCRIPTS.items():
        for name in names:
            assert (ROOT / "benchmarks" / "results" / folder / name).is_file(), (folder, name)
            assert not (ROOT / "benchmarks" / name).exists(), f"benchmarks/{name} should live in results/{folder}/"
    assert not list((ROOT / "benchmarks").glob("*round*.sh"))
