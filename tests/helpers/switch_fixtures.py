"""Fixtures shared by the IF/ELSE, SWITCH and captured-body CPU tests: the graph-model fake driver installed, and the
kernel sources read from this checkout (an editable install may point cugraphlab.kernels at another tree)."""
from __future__ import annotations

from pathlib import Path

import pytest

from fake_driver import patch_driver

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def own_kernels(monkeypatch):
    monkeypatch.setattr("cugraphlab.core.sources.kernel_dir", lambda: ROOT / "kernels")


def install(monkeypatch, **kw):
    """Install a FakeConditionalDriver (keyword arguments go to it) and return it."""
    from fake_conditional import FakeConditionalDriver

    fake = FakeConditionalDriver(**kw)
    patch_driver(monkeypatch, fake)
    return fake


@pytest.fixture
def cond_driver(monkeypatch, own_kernels):
    yield install(monkeypatch)
