"""How the tests themselves are written: GPU tests are selected by the ``gpu`` marker and named one way
(``test_*_gpu.py`` holds GPU tests only; no ``_cpu``, ``test_gpu_`` or ``on_device`` names), and no GPU test asserts
that one measured time is below another (a noisy machine makes such a test fail at random: one did on the H200;
those comparisons belong in benchmarks, with intervals)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
FILES = sorted(p for p in TESTS.rglob("test_*.py"))

# assert <a timing> < / > <another timing>: both sides name a measured figure
_TIMING = r"[\w.\[\]\"'()]*(?:median|\.us\b|_us\b|_ms\b|seconds|wall|device_us)[\w.\[\]\"'()]*"
ORDER = re.compile(rf"assert .*{_TIMING}\s*[<>]=?\s*{_TIMING}")


def _is_gpu_file(text: str) -> bool:
    return bool(re.search(r"^pytestmark\s*=.*\bgpu\b", text, re.M))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_a_test_file_is_named_for_what_it_needs(path):
    text = path.read_text()
    name = path.stem
    assert not re.search(r"_cpu$|^test_gpu_|_on_device$", name), f"{name}: GPU tests end in _gpu, CPU tests in nothing"
    if _is_gpu_file(text):
        assert name.endswith("_gpu"), f"{path.name} holds GPU tests only: name it test_..._gpu.py"
    else:
        assert not name.endswith("_gpu") or "@pytest.mark.gpu" in text, f"{path.name} has no GPU test"


@pytest.mark.parametrize("path", [p for p in FILES if p.stem.endswith("_gpu")], ids=lambda p: p.name)
def test_no_gpu_test_asserts_a_timing_order(path):
    bad = [f"{path.name}:{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1)
           if ORDER.search(line)]
    assert bad == [], "move timing comparisons into a benchmark:\n" + "\n".join(bad)


def test_the_timing_order_check_finds_one():
    assert ORDER.search("    assert r.costs['c'].median < r.costs['py'].median")
    assert ORDER.search("    assert a.device_us > b.device_us")
    assert not ORDER.search("    assert r.us.median > 0 and r.n == 5")
