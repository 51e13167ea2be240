""".ci/resolve_pins.py tries a failed download again (without pip's cache), and never a resolution that fails: pip is
stood in for, no index is asked."""
from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "resolve_pins.py"


@pytest.fixture
def pins():
    spec = importlib.util.spec_from_file_location("resolve_pins", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pip(answers, calls):
    def run(cmd, **kwargs):
        calls.append(cmd)
        code, err = answers.pop(0)
        out = json.dumps({"install": [{"metadata": {"name": "cuda_bindings", "version": "13.5.0"}}]}) if code == 0 else ""
        return subprocess.CompletedProcess(cmd, code, out, err)
    return run


def test_a_download_with_another_hash_is_tried_again_without_the_cache(pins, monkeypatch):
    calls = []
    bad = "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES\n    numpy: Expected sha256 3cde / Got 3c38"
    monkeypatch.setattr(pins.subprocess, "run", _pip([(1, bad), (0, "")], calls))
    assert pins.resolve("3.12", ["cugraphlab"]) == {"cuda-bindings": "13.5.0"}
    assert len(calls) == 2 and "--no-cache-dir" not in calls[0] and "--no-cache-dir" in calls[1]


def test_pins_that_do_not_resolve_are_said_at_once(pins, monkeypatch):
    calls = []
    impossible = "ERROR: ResolutionImpossible: cuda-bindings>=99 and cuda-bindings<13 conflict"
    monkeypatch.setattr(pins.subprocess, "run", _pip([(1, impossible)], calls))
    with pytest.raises(RuntimeError, match="ResolutionImpossible") as e:
        pins.resolve("3.12", ["cugraphlab"])
    assert len(calls) == 1 and "attempts" not in str(e.value)


def test_a_download_that_keeps_failing_is_reported_with_its_attempts(pins, monkeypatch):
    calls = []
    bad = "ERROR: Read timed out"
    monkeypatch.setattr(pins.subprocess, "run", _pip([(1, bad)] * 3, calls))
    with pytest.raises(RuntimeError, match=r"Read timed out \(after 3 attempts\)"):
        pins.resolve("3.12", ["cugraphlab"])
    assert len(calls) == 3
