"""Fixtures shared by the IF/ELSE, SWITCH and captured-body CPU tests: the graph-model fake driver installed, and the
kernel sources read from this checkout (an editable install may point cugraphlab.kernels at another tree)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))


@pytest.fixture
def own_kernels(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.sources.kernel_dir", lambda: ROOT / "kernels")


def install(monkeypatch, **kw):
    """Install a FakeConditionalDriver (keyword arguments go to it) and return it."""
    from fake_conditional import FakeConditionalDriver

    fake = FakeConditionalDriver(**kw)
    monkeypatch.setattr("cugraphlab.core._calls._driver", fake)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)
    return fake


@pytest.fixture
def cond_driver(monkeypatch, own_kernels):
    yield install(monkeypatch)
