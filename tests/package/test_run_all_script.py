"""benchmarks/run_all.sh: an import guard that fails where the package is not installed (even from the repo root),
one line and exit 2 without a GPU, and an exit status that says whether every step passed."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "run_all.sh"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _run(python: str, out: Path, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": python, **(extra_env or {})}
    return subprocess.run(["bash", str(SCRIPT), str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def _fake_python(tmp_path: Path, failing: str) -> str:
    """A stand-in for python: the import guard and `cugraphlab info` pass, any command line holding ``failing``
    fails with exit 3, every other step passes at once."""
    fake = tmp_path / "python"
    fake.write_text(f'#!/usr/bin/env bash\ncase "$*" in\n  *"{failing}"*) echo "{failing} failed" >&2; exit 3 ;;\n'
                    f'  *) exit 0 ;;\nesac\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return str(fake)


def test_a_python_without_the_package_is_refused_from_the_repo_root(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    r = _run(str(venv / "bin" / "python"), tmp_path / "out")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "lacks the installed package, pytest or matplotlib" in lines[0]
    assert "pip install -e '.[test,plot]'" in lines[0] and not (tmp_path / "out").exists()


def test_without_a_gpu_it_says_so_in_one_line_and_exits_2(tmp_path):
    from conftest import gpu_unavailable_reason

    if gpu_unavailable_reason() is None:
        pytest.skip("a GPU answers here: the script would measure everything")
    pytest.importorskip("matplotlib")
    r = _run(sys.executable, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("run_all.sh: no usable GPU"), r.stderr
    assert not (tmp_path / "out").exists()


def test_a_failing_step_makes_the_exit_status_1_and_is_named(tmp_path):
    r = _run(_fake_python(tmp_path, "pdl"), tmp_path / "out")
    assert r.returncode == 1, (r.stdout, r.stderr)
    last = r.stderr.strip().splitlines()[-1]
    assert "3 step(s) failed: pdl (exit 3);pdl unroll 50 (exit 3);pdl 1024 (exit 3)" in last


def test_every_step_passing_exits_0(tmp_path):
    r = _run(_fake_python(tmp_path, "never-matches"), tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "every step exited 0" in r.stdout


def test_scale_threads_fit_the_machine(tmp_path):
    """--threads is cut to the usable cores (scale refuses more threads than cores)."""
    log = tmp_path / "calls"
    fake = tmp_path / "python"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\nexit 0\n')
    fake.chmod(0o755)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "nproc").write_text("#!/usr/bin/env bash\necho 2\n")
    (bindir / "nproc").chmod(0o755)
    r = _run(str(fake), tmp_path / "out", {"PATH": f"{bindir}:{os.environ['PATH']}"})
    assert r.returncode == 0, r.stderr
    chain = [line for line in log.read_text().splitlines() if "--work chain" in line]
    assert chain and "--threads 1,2 " in chain[0]
