"""constraints/h200-gpu-tests.txt resolves on every Python the package installs on: a pin whose wheels exist only for
newer Pythons holds there alone (numpy 2.5.2 was ResolutionImpossible on 3.10 and 3.11)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "constraints" / "h200-gpu-tests.txt"
#: The oldest Python each pinned version has wheels for (read off PyPI when the pins were set); the default: 3.10.
NEEDS_PYTHON = {("numpy", "2.5.2"): (3, 12), ("matplotlib", "3.11.2"): (3, 11)}


def _pins():
    out = []
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^;\s]+)\s*(?:;\s*(.+))?", line)
            assert m, line
            out.append(m.groups())
    return out


def _supported_pythons():
    text = (ROOT / "pyproject.toml").read_text()
    low = re.search(r'requires-python = ">=3\.(\d+)"', text)
    return [(3, minor) for minor in range(int(low.group(1)), 15)]


@pytest.mark.parametrize("python", _supported_pythons(), ids=lambda v: "%d.%d" % v)
def test_every_pin_that_applies_has_wheels_for_that_python(python):
    packaging = pytest.importorskip("packaging.markers")
    for name, version, marker in _pins():
        applies = marker is None or packaging.Marker(marker).evaluate({"python_version": "%d.%d" % python})
        if applies:
            assert python >= NEEDS_PYTHON.get((name, version), (3, 10)), (name, version, python)


def test_the_tested_versions_still_hold_on_the_h200s_python():
    pins = {name: (version, marker) for name, version, marker in _pins()}
    assert pins["numpy"][0] == "2.5.2" and pins["cuda-bindings"][0] == "13.3.1"
    assert "3.10" in CONSTRAINTS.read_text() and "did not run with" in CONSTRAINTS.read_text()
