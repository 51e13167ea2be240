"""How the tests themselves are written: GPU tests are selected by the ``gpu`` marker and named one way
(``test_*_gpu.py`` holds GPU tests only; no ``_cpu``, ``test_gpu_`` or ``on_device`` names), and no GPU test asserts
that one measured time is below another (a noisy machine makes such a test fail at random: one did on the H200;
those comparisons belong in benchmarks, with intervals). That covers every form of it: ``a < b``, ``a > k * b``, a
ratio of two measurements bounded (``1.05 < ratio < 3.0``, ``ratio > 0.3``), and a measured figure held between two
numbers (``0.2 < median < 200``). Sanity ranges that a correct run cannot leave stay allowed: positive
(``median > 0``), and positive below a ceiling far above the figure (``0 < median < 1000``)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
FILES = sorted(p for p in TESTS.rglob("test_*.py"))

# assert <a timing> < / > [k *] <another timing>: both sides name a measured figure
_TIMING = r"[\w.\[\]\"'()]*(?:median|\.us\b|_us\b|_ms\b|seconds|wall|device_us|gbps)[\w.\[\]\"'()]*"
_NUM = r"-?\d[\d_]*(?:\.\d+)?(?:e-?\d+)?"
ORDER = re.compile(rf"assert .*{_TIMING}\s*[<>]=?\s*(?:{_NUM}\s*\*\s*)?{_TIMING}")
# a ratio of two measurements, or a figure, between two numbers: lo < x < hi
_RATIO = r"[\w.\[\]\"'()]*(?:\bratio|_ratio|speedup)[\w.\[\]\"'()]*"
RANGE = re.compile(rf"(?<![\w.])({_NUM})\s*<=?\s*({_TIMING}|{_RATIO})\s*<=?\s*({_NUM})(?![\w.])")
# a ratio bounded on one side by a number other than 0: ratio > 0.3, 1.05 < ratio
BOUND = re.compile(rf"(?:{_RATIO}\s*[<>]=?\s*({_NUM})(?![\w.])|(?<![\w.])({_NUM})\s*[<>]=?\s*{_RATIO})")


def timing_assert(line: str) -> bool:
    """Whether ``line`` asserts an order between measured figures, in any of the module docstring's forms."""
    if not line.lstrip().startswith("assert") and " assert " not in line:
        return False
    if ORDER.search(line):
        return True
    for m in RANGE.finditer(line):
        lo, middle = m.group(1), m.group(2)
        if float(lo.replace("_", "")) != 0 or re.search(r"\bratio|_ratio|speedup", middle):
            return True
    for m in BOUND.finditer(line):
        number = m.group(1) or m.group(2)
        if not RANGE.search(line[max(0, m.start() - 40):m.end() + 40]) and float(number.replace("_", "")) != 0:
            return True
    return False


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
           if timing_assert(line)]
    assert bad == [], "move timing comparisons into a benchmark:\n" + "\n".join(bad)


@pytest.mark.parametrize("line", [
    "    assert r.costs['c'].median < r.costs['py'].median",
    "    assert a.device_us > b.device_us",
    "    assert line_us[64] > 4 * line_us[1]",
    "    assert 1.05 < host.ratio < 3.0  # about (base + 1 µs) / base",
    '    assert 0.8 < o["replay_ratio"] < 1.25, o',
    '    assert 0.8 < o["cupti_replay_ratio"] <= 1.25, o',
    '        assert w["ratio"] is not None and 0.1 < w["ratio"]["median"] < 20, w',
    '        assert w["us"] is not None and 0.2 < w["us"]["median"] < 200, w',
    '    assert all(e["c_us"]["median"] > 0 and e["ratio"]["lo"] > 0.3 for e in x)',
    "    assert 1.5 <= r.speedup",
    '    assert r.roof["fused_cold_gbps"] < 1.1 * r.roof["copy_gbps"]',
])
def test_the_timing_order_check_finds_every_form(line):
    assert timing_assert(line)


@pytest.mark.parametrize("line", [
    "    assert r.us.median > 0 and r.n == 5",
    '        assert 0 < s["held_launch_us"]["median"] < 1000 and p["held"]["held_released"]',
    "    assert 1 < chk.iterations < 10_000",
    "    assert abs(free_before - device.memory_info()[0]) <= 1 << 20",
    "    assert r.ratio > 0 and math.isfinite(r.ratio)",
    '    assert slope["c_us_per_node"]["median"] > 0 and slope["ratio"]["lo"] <= slope["ratio"]["median"]',
    "    ratio = 1.05 < x < 3.0  # not an assert",
    "    assert 1 < chk.iterations < 10_000 and chk.iterations % every == 0",
])
def test_the_timing_order_check_leaves_correctness_alone(line):
    assert not timing_assert(line)


_ASSERTS = ("assert", "pytest.raises", "pytest.fail", "pytest.warns", "fnmatch_lines", "assert_outcomes")


def _asserting_functions(tree) -> set[str]:
    """The names of the file's functions that assert, directly or through another such function of the file."""
    bodies = {n.name: ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    asserting = {name for name, src in bodies.items() if any(a in src for a in _ASSERTS)}
    grew = True
    while grew:  # a helper that calls an asserting helper asserts
        more = {name for name, src in bodies.items()
                if name not in asserting and any(re.search(rf"\b{h}\(", src) for h in asserting)}
        asserting |= more
        grew = bool(more)
    return asserting


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_test_asserts_what_it_shows(path):
    """No smoke test: a test that only calls something passes for any result but an exception; it asserts the
    result (a value, the calls made, the state after), itself or through a helper of its file that does."""
    tree = ast.parse(path.read_text())
    asserting = _asserting_functions(tree)
    bare = [f"{path.name}:{n.lineno} {n.name}" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")
            and n.name not in asserting]
    assert bare == [], "assert what the test shows:\n" + "\n".join(bare)


def test_the_assert_check_follows_helpers_of_the_file():
    tree = ast.parse("def _ok(x):\n    assert x\n\ndef _via(x):\n    _ok(x)\n\ndef test_a():\n    _via(1)\n\n"
                     "def test_b():\n    print(1)\n")
    assert _asserting_functions(tree) == {"_ok", "_via", "test_a"}
