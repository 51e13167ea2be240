"""``cgl_measure``: what a test calls. The same arguments as ``cugraphlab.measure``, the session's settings added.

    def step(stream, launch):            # top-level: each worker process imports it by name
        launch.on(stream)()  ...

    def test_step_launch_cost(cgl_measure):
        result = cgl_measure(step, setup=make, ways=("eager", "graph"))
        assert result["graph"].measured

With ``--cgl-processes N`` (6 by default when saving or comparing) the measurement runs in N worker processes of
the session, one after the other (``bench.measure.pool``): the work, ``setup``, ``check`` and ``prepare`` must then
be top-level functions of the test file (or ``"path.py:function"`` strings), which the workers import from the file
alone. With 1 it runs in the test's own process and anything callable works.

What a test's measurement may take: ``--cgl-budget`` seconds (30 by default), or ``@pytest.mark.cgl_budget(
seconds=S)`` for one test; sampling gets about half of it, shared by the processes. ``cgl_budget(us=X, way="eager",
clock="host")`` fails the test when that figure's median exceeds X µs per call: ``clock="held"`` for how long the
work runs on the GPU (``"cold"``: one call, cold L2), ``"host"`` for what a call costs the test's thread.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

__all__ = ["Settings", "Measurer", "CLOCK_CHOICES", "test_key", "no_gpu_reason", "one_line"]

CLOCK_CHOICES = ("host", "wall", "device", "held", "cold")


def test_key(item) -> str:
    """The test's name in record files: its file's name and its name in the file (``test_x.py::test_y[p]``),
    the same whatever directory pytest runs from (a node id depends on the rootdir)."""
    nodeid = item.nodeid
    inside = nodeid.split("::", 1)[1] if "::" in nodeid else item.name
    return f"{item.path.name}::{inside}"


def no_gpu_reason() -> str | None:
    """Why no measurement can run here (no driver, no device), in one line, or None."""
    from ..core.device import device_count
    from ..core.errors import NoDeviceError

    try:
        count = device_count()
    except NoDeviceError as e:
        return one_line(f"no usable GPU: {e}")
    return None if count > 0 else "no usable GPU: the driver reports no CUDA device"


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line (a skip reason is printed on one), at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


@dataclass
class Settings:
    """The session's options (plugin.py reads them from the command line)."""

    save: str | None = None
    compare: str | None = None
    fail_on: str | None = None
    threshold: float = 0.10
    judge: str = "repeatable"
    processes: int = 1
    budget_s: float = 30.0
    max_samples: int = 200


class Measurer:
    """The fixture's value: call it to measure; every result of the test is kept for the session's summary."""

    def __init__(self, request, settings: Settings, state):
        self.request, self.settings, self.state = request, settings, state
        self.results: list = []

    def _budget(self) -> dict:
        marker = self.request.node.get_closest_marker("cgl_budget")
        kwargs = dict(marker.kwargs) if marker is not None else {}
        unknown = set(kwargs) - {"seconds", "us", "way", "clock"}
        if unknown or (marker is not None and marker.args):
            raise pytest.UsageError(f"{self.request.node.nodeid}: cgl_budget takes seconds=, us=, way=, clock=; "
                                    f"got {sorted(unknown) or marker.args}")
        if kwargs.get("clock", "host") not in CLOCK_CHOICES:
            raise pytest.UsageError(f"cgl_budget clock must be one of {', '.join(CLOCK_CHOICES)}")
        return kwargs

    def _options(self, seconds: float, processes: int, ways, l2: str, capture_mode: str, calls) -> dict:
        per_process = max(0.2, min(5.0, seconds / (2.0 * processes)))
        return {"ways": tuple(ways) if ways is not None else None, "l2": l2, "calls": calls, "sm_clock": True,
                "capture_mode": capture_mode, "min_samples": 10, "max_samples": self.settings.max_samples,
                "target_spread": 0.01, "time_budget_s": per_process}

    def __call__(self, work, *, setup=None, check=None, prepare=None, stream=None, ways=None, name: str | None = None,
                 l2: str = "warm", capture_mode: str = "thread_local", calls: int | None = None, device=None):
        from ..bench.measure.processes import gather, spec_for
        from ..bench.measure.run import measure_here
        from ..core.errors import CugraphlabError, NoDeviceError

        budget = self._budget()
        seconds = float(budget.get("seconds") or self.settings.budget_s)
        n = self.settings.processes
        options = self._options(seconds, n, ways, l2, capture_mode, calls)
        try:
            if n > 1:
                spec = spec_for(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device)
                replies = self.state.pool(n).run(spec, options, timeout_s=seconds)
                result = gather(replies, options, [f"{n} processes of the pytest session, one after the other"])
            else:
                result = measure_here(work, setup=setup, check=check, prepare=prepare, stream=stream,
                                      device=device, options=options)
        except NoDeviceError as e:  # the device went away, or a worker found none: a skip, as at the fixture's set-up
            pytest.skip(one_line(f"cgl_measure: no usable GPU: {e}"))
        except CugraphlabError as e:
            pytest.fail(f"cgl_measure: {e}", pytrace=False)
        self._judge(result, budget, name)
        return result

    def _judge(self, result, budget: dict, name: str | None) -> None:
        from .store import compare_files, save

        nodeid = test_key(self.request.node)
        s = self.settings
        if s.save:
            save(s.save, nodeid, result, name)
        comparison = (compare_files(s.compare, nodeid, result.to_dict(), s.threshold, name, s.judge)
                      if s.compare else None)
        self.state.measured.append((nodeid, name, result, comparison))
        us = budget.get("us")
        if us is not None:
            way, clock = budget.get("way", "eager"), budget.get("clock", "host")
            fig = result.way(way).figure(clock)
            if fig is None:
                w = result.way(way)
                pytest.fail(f"cgl_budget: {way} {clock} was not measured ({w.note or w.gpu_note})", pytrace=False)
            if fig.median > float(us):
                pytest.fail(f"cgl_budget: {way} {clock} {fig.median:.3f} us per call exceeds the budget of "
                            f"{float(us):g} us", pytrace=False)
        if comparison is not None and comparison.fails(s.fail_on):
            pytest.fail(f"cgl_measure: against {s.compare}: " + "; ".join(comparison.changed), pytrace=False)
