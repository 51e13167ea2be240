"""The skipped tests are printed one line per reason with its count (88 SKIPPED lines before), reasons kept."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_skips_are_grouped_one_line_per_reason(tmp_path, workers):
    """Also under pytest-xdist (README's test command): the workers' reports reach the summary in the controller."""
    if workers:
        pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests" / "helpers")!r})
        from skip_summary import pytest_terminal_summary  # noqa: F401
    """))
    (tmp_path / "test_many.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("i", range(5))
        @pytest.mark.skip(reason="no usable GPU: none here")
        def test_gpu(i):
            pass

        @pytest.mark.parametrize("i", range(2))
        def test_linker(i):
            pytest.skip("nvJitLink is not installed here")

        def test_runs():
            pass
    """))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *workers,
                        str(tmp_path)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    skipped = [line for line in lines if line.startswith("SKIPPED")]
    assert skipped == ["SKIPPED    5  no usable GPU: none here", "SKIPPED    2  nvJitLink is not installed here"], r.stdout
    assert any(re.search(r"7 skipped, by reason", line) for line in lines)
    assert "1 passed, 7 skipped" in lines[-1]


def test_pyproject_leaves_s_out_of_r():
    text = (ROOT / "pyproject.toml").read_text()
    addopts = re.search(r'^addopts = "([^"]*)"', text, re.M).group(1)
    r = re.search(r"-r(\w+)", addopts).group(1)
    assert "s" not in r and "a" not in r.lower() and "f" in r and "E" in r
