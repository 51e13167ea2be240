"""A user's own suite, outside the checkout, that asks for ``cgl_measure`` on a machine where no GPU answers: the test
skips with a one-line reason (as the project's own GPU tests do), its CPU tests pass, pytest exits 0, and
``--cgl-save`` saves nothing. Run in a fresh pytest process with ``CUDA_VISIBLE_DEVICES`` empty, so that it reads
the same with or without a GPU in the machine (no driver: "no NVIDIA driver found"; a driver: no visible device)."""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USER_SUITE = '''
from cugraphlab.core._calls import cu

N = 256


def make(stream):
    return (stream.device.array(N),)


def step(stream, buf):
    cu("cuMemsetD32Async", buf.handle, 0, N, stream.handle)


def test_step_launch_cost(cgl_measure):
    result = cgl_measure(step, setup=make, ways=("eager", "graph"))
    assert result["eager"].measured


def test_parsing_on_the_cpu():
    assert int("42") == 42
'''


def _run_user_suite(folder: Path, *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))
    env.pop("PYTEST_ADDOPTS", None)
    plugin = [] if any(ep.name == "cugraphlab" for ep in entry_points(group="pytest11")) else [
        "-p", "cugraphlab.testing.plugin"]  # the package on the path but not installed: name the plugin
    junit = folder / "report.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", f"--junitxml={junit}",
                        *plugin, *options, "tests_user.py"], cwd=folder, env=env, capture_output=True, text=True,
                       timeout=300)
    cases = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        skipped = case.find("skipped")
        failed = case.find("failure") if case.find("failure") is not None else case.find("error")
        cases[case.get("name")] = ("skipped", skipped.get("message")) if skipped is not None else (
            ("failed", failed.get("message")) if failed is not None else ("passed", None))
    return r, cases


def test_a_users_suite_without_a_gpu_skips_the_measuring_test_in_one_line_and_exits_0(tmp_path):
    suite = tmp_path / "user_project"
    suite.mkdir()
    assert ROOT not in suite.resolve().parents  # outside the checkout: no conftest of ours, no pyproject of ours
    (suite / "tests_user.py").write_text(USER_SUITE)
    saved = suite / "saved"
    r, cases = _run_user_suite(suite, "--cgl-save", str(saved))
    output = r.stdout + r.stderr
    assert r.returncode == 0, output  # not 1 (a failure) and not 5 (nothing ran): the CPU test passed
    assert cases["test_parsing_on_the_cpu"] == ("passed", None), cases
    outcome, reason = cases["test_step_launch_cost"]
    assert outcome == "skipped", (cases, output)
    assert reason.startswith("cgl_measure: no usable GPU: ") and "\n" not in reason and len(reason) <= 300, reason
    assert "Traceback" not in output and "The above exception" not in output, output
    assert "1 passed, 1 skipped" in output, output
    assert not saved.exists() or not any(saved.iterdir())  # nothing saved, and nothing else written there
    assert "1 test(s) skipped: no usable GPU" in output and "(nothing saved)" in output, output


def test_a_users_suite_without_a_gpu_skips_in_the_test_process_too(tmp_path):
    """The default (no saving: one process, the measurement in the test's own) takes the same way out."""
    (tmp_path / "tests_user.py").write_text(USER_SUITE)
    r, cases = _run_user_suite(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [outcome for outcome, _ in cases.values()].count("skipped") == 1, cases
    assert cases["test_parsing_on_the_cpu"][0] == "passed"
