"""Lint, as .ci/run's step (d) runs it: ruff (pyflakes and import order, pyproject's ``[tool.ruff]``) finds nothing
in the package, its tests, benchmarks and examples. Types (mypy on core and graphs) are checked by .ci/run only: a
cold mypy run costs seconds this suite need not spend twice. No GPU needed."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> list[str]:
    here = Path(sys.executable).parent / "ruff"
    found = str(here) if here.is_file() else shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed here (it comes with the test extra: pip install -e '.[test]')")
    return [found]


def test_ruff_finds_nothing():
    r = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", "."], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_sees_an_unused_import_and_a_misplaced_one(tmp_path):
    """The configuration is live: a file with both faults fails with both codes."""
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport os\n\nprint(os.sep)\n")
    r = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", "--config",
                        str(ROOT / "pyproject.toml"), str(bad)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "F401" in r.stdout and "I001" in r.stdout, r.stdout + r.stderr
