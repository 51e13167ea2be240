"""Shared fixtures. GPU tests carry the `gpu` marker and skip, with the reason, where no driver or device answers."""
from __future__ import annotations

import fcntl
import functools
import subprocess
import sys
from pathlib import Path

import pytest

# pyproject's ``pythonpath`` puts tests/helpers (the fakes, which tests of every floor import by name: fake_driver
# ...) and benchmarks/ (the studies, ``studies.floor`` ..., research outside the package) on sys.path
from figures_summary import figures_summary
from skip_summary import cut_at_word  # noqa: F401
from skip_summary import pytest_terminal_summary as skipped_by_reason

ROOT = Path(__file__).resolve().parents[1]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped_by_reason(terminalreporter, exitstatus, config)  # the skipped tests, one line per reason
    figures_summary(terminalreporter)  # the figures tests report (record_property("figures", ...)): sizes


@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason() -> str | None:
    try:
        from cugraphlab.core.device import device_count

        return None if device_count() > 0 else "the driver reports no CUDA device"
    except Exception as e:  # NoDeviceError, or anything else the driver says
        return f"no usable GPU: {e}"


@functools.lru_cache(maxsize=1)
def nvjitlink_unavailable_reason() -> str | None:
    """Why nvJitLink cannot be used here (it comes with the devlaunch extra, not the plain install), or None."""
    try:
        from cugraphlab.core.link import nvjitlink_version

        nvjitlink_version()
        return None
    except Exception as e:
        return cut_at_word(f"nvJitLink is not installed here (pip install 'cugraphlab[devlaunch]'): {e}", 300)


def pytest_collection_finish(session):
    """Everything alive once the tests are collected (the package, NumPy, matplotlib, the collected items) lives to
    the end of the session: it is frozen out of the garbage collector's sight (``gc.freeze``), so that each
    ``gc.collect()`` a test or the fake driver's teardown makes walks only what the tests made since. With the
    package loaded a full collection walked about 80,000 objects (90 ms on the 2-core machine); after, almost none.
    Nothing a test makes is frozen: its finalizers run at the collections the tests ask for, as before."""
    import gc

    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    reason = gpu_unavailable_reason() if any("gpu" in item.keywords for item in items) else None
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
    linked = [item for item in items if "nvjitlink" in item.keywords]
    reason = nvjitlink_unavailable_reason() if linked else None
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in linked:
            item.add_marker(skip)
    # the long ones first (marked xdist_group: the course's fresh environment, the floors' probe), so that under
    # pytest-xdist a worker starts on them while the others share the rest, instead of one starting them last. Under
    # pytest 9 the mark no longer keeps them on one worker (xdist writes the group to item._nodeid, which pytest 9
    # does not read): their costly parts are made once per run through helpers/once_per_run.py instead
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test compiles into a cache of its session, never the user's."""
    monkeypatch.setenv("CUGRAPHLAB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "nvrtc-cache"))


@pytest.fixture(scope="session")
def device():
    from cugraphlab import Device

    with Device(0) as dev:
        yield dev


@pytest.fixture(scope="session")
def kernels(device, tmp_path_factory):
    from cugraphlab.core.cache import Cache

    with device.load_kernels(cache=Cache(tmp_path_factory.mktemp("kernel-cache"))) as ks:
        yield ks


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng()


@pytest.fixture
def fake_driver():
    """cugraphlab talking to tests/helpers/fake_driver.FakeDriver instead of libcuda (no GPU needed).

    At teardown the objects this test dropped are collected while its fake is still in place (``use_driver``): a
    finalizer run later, under another test's fake or the real bindings (which would go looking for libcuda through
    cuda.pathfinder from inside a GC pass), could release a handle into the wrong driver or deadlock.
    """
    from fake_driver import FakeDriver, use_driver

    with use_driver(FakeDriver()) as fake:
        yield fake


@pytest.fixture
def no_gpu(monkeypatch):
    """cugraphlab finds no NVIDIA driver: cuInit raises NoDeviceError (as on a machine without a GPU)."""
    from fake_driver import refuse_device

    refuse_device(monkeypatch)


# One wheel of this checkout per test run, shared by the tests that need it (packaging, the course's setup cell).
# Under pytest-xdist every worker runs its own session fixtures, so the first worker to ask builds the wheel under a
# file lock in the run's shared temporary folder and the others take the same file: the checkout is built once, and
# never by two processes at a time (``pip wheel`` of a source folder writes ``build/`` inside it).
@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """The path of a ``cugraphlab-*.whl`` built from this checkout (``pip wheel --no-deps --no-build-isolation``)."""
    pytest.importorskip("setuptools")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if base.name.startswith("popen-gw") else base  # xdist: one folder for all workers
    wheels = shared / "cugraphlab-wheel"
    with open(shared / "cugraphlab-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(wheels.glob("cugraphlab-*.whl"))
        if not found:
            r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                                "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, r.stderr[-2000:]
            found = sorted(wheels.glob("cugraphlab-*.whl"))
    (wheel,) = found
    return wheel
