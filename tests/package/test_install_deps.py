"""The install depends on what the code loads: cuda-bindings and the NVRTC wheel of its major, nothing of
cuda-bindings' `all` extra; device graph launch's libraries come only with the devlaunch extras; the constraints
file of the last green H200 run parses and pins what the records say."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

Requirement = pytest.importorskip("packaging.requirements").Requirement

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]


def reqs(lines):
    return {Requirement(r).name: Requirement(r) for r in lines}


def test_no_all_extra_anywhere():
    for line in PROJECT["dependencies"] + [r for v in EXTRAS.values() for r in v]:
        assert "all" not in Requirement(line).extras, line


def test_nvrtc_comes_with_the_bindings_on_each_major():
    base = reqs(PROJECT["dependencies"])
    assert base["cuda-toolkit"].extras == {"nvrtc"} and base["cuda-bindings"].extras == set()
    for extra, major in (("cu12", "12"), ("cu13", "13")):
        r = reqs(EXTRAS[extra])
        assert "nvrtc" in r["cuda-toolkit"].extras
        assert r["cuda-bindings"].specifier.contains(f"{major}.9.5" if major == "12" else "13.3.1")
        assert r["cuda-toolkit"].specifier.contains(f"{major}.9.2" if major == "12" else "13.0.2")
        other = "13.0.0" if major == "12" else "12.9.2"
        assert not r["cuda-toolkit"].specifier.contains(other)


def test_devlaunch_extras_bring_nvjitlink_and_the_runtime_of_their_major():
    for extra, version in (("devlaunch", "13.0.2"), ("devlaunch-cu12", "12.9.2")):
        (r,) = [Requirement(x) for x in EXTRAS[extra]]
        assert r.name == "cuda-toolkit" and {"nvjitlink", "cudart"} <= r.extras
        assert r.specifier.contains(version)


def test_the_error_messages_name_the_extra():
    from cugraphlab.core._calls import NVJITLINK_INSTALL
    from cugraphlab.core.link import DEVRT_INSTALL

    for text in (NVJITLINK_INSTALL, DEVRT_INSTALL):
        assert "cugraphlab[devlaunch]" in text and "cugraphlab[cu12,devlaunch-cu12]" in text
    assert set(EXTRAS) >= {"devlaunch", "devlaunch-cu12"}


def test_the_constraints_file_pins_the_last_green_h200_versions():
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "constraints/h200-gpu-tests.txt").read_text().splitlines()]
    pins = {Requirement(ln).name: str(Requirement(ln).specifier) for ln in lines if ln}
    assert pins["cuda-bindings"] == "==13.3.1" and pins["numpy"] == "==2.5.2"
    assert re.fullmatch(r"==13\.0\.\*", pins["nvidia-cuda-nvrtc"])
    assert set(pins) >= {"cupy-cuda13x", "matplotlib", "cuda-toolkit"}
