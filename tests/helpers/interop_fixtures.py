"""Fixtures of the core tests that run on the interop fake (tests/helpers/fake_interop.py): a driver of two
devices that answers the calls foreign arrays and streams need, and device 0 opened on it. A test file takes them
with `from interop_fixtures import dev, drv  # noqa: F401` (pytest finds fixtures imported into a test module)."""
from __future__ import annotations

import gc

import pytest

from fake_driver import patch_driver


@pytest.fixture
def drv(monkeypatch):
    from fake_interop import InteropDriver

    fake = InteropDriver(device_count=2)
    patch_driver(monkeypatch, fake)
    yield fake
    gc.collect()


@pytest.fixture
def dev(drv):
    from cugraphlab.core.device import Device

    with Device(0) as d:
        yield d
