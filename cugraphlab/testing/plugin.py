"""The pytest plugin (entry point ``pytest11``: ``cugraphlab = cugraphlab.testing.plugin``): the ``cgl_measure``
fixture, the ``cgl_budget`` marker and the ``--cgl-*`` options.

    pytest --cgl-save .cgl/main                                    # record every measurement
    pytest --cgl-compare .cgl/main --cgl-fail-on slower            # later: fail a test that got slower

Comparisons use ``cugraphlab diff``'s verdicts (``bench.diff.diff_records``) with the process as the unit: saving
or comparing measures each test in ``--cgl-processes`` (6) worker processes of the session, so that the verdict
rests on six observations of the per-process launch-cost mode, not on thousands of samples of one. The rows that
decide are those that repeat between processes (``--cgl-judge``, ``bench.diff.judged_rows``, the rule diff and
measure share): each way's x ref row (host cost in bare launches timed in the same rounds), its held and cold rows,
and the device time of a way the GPU paces. The threshold is 10% (``--cgl-threshold``).

Nothing happens unless a test asks for the fixture: the plugin imports nothing of cugraphlab at load.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from .fixture import Measurer, Settings, no_gpu_reason

FAIL_ON = ("slower", "faster", "any-change")


class _State:
    """The session's pool of workers (made on first use) and every measurement made. ``target`` and ``device``
    are the pool's (``bench.measure.pool.WorkerPool``); tests on a machine without a GPU replace them."""

    target = None
    device: int | None = 0

    def __init__(self):
        self._pool = None
        self.measured: list = []
        self.skipped = 0  # tests that asked for cgl_measure where no GPU answers
        self._no_gpu: tuple[str | None] | None = None

    def no_gpu_reason(self) -> str | None:
        """Why no measurement can run here (no driver, no device), in one line, or None; asked once a session."""
        if self._no_gpu is None:
            self._no_gpu = (no_gpu_reason(),)
        return self._no_gpu[0]

    def pool(self, n: int):
        if self._pool is None or self._pool.n != n:
            from ..bench.measure.pool import WorkerPool

            self.close()
            self._pool = WorkerPool(n, target=type(self).target, device=type(self).device)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


_STATE = pytest.StashKey[_State]()
_SETTINGS = pytest.StashKey[Settings]()


def pytest_addoption(parser):
    g = parser.getgroup("cugraphlab", "cugraphlab: launch cost in your tests (fixture cgl_measure)")
    g.addoption("--cgl-save", metavar="DIR", help="write each measurement's record to DIR/<test file>__<test>.json "
                "(e.g. test_step.py__test_cost.json; a measurement named N: ...--N.json)")
    g.addoption("--cgl-compare", metavar="DIR", help="compare each measurement with its record in DIR "
                "(cugraphlab diff's verdicts: SAME, FASTER, SLOWER, AMBIGUOUS)")
    g.addoption("--cgl-fail-on", choices=FAIL_ON, default=None,
                help="with --cgl-compare: fail a test whose measurement got slower (faster, any-change)")
    g.addoption("--cgl-threshold", default="10%", help="smallest change that counts (default 10%%)")
    g.addoption("--cgl-judge", choices=("repeatable", "all"), default="repeatable",
                help="which rows decide: repeatable (default: x ref, held, cold and device-bound rows, figures "
                     "that repeat between processes; cugraphlab diff --judge) or all")
    g.addoption("--cgl-processes", type=int, default=None,
                help="worker processes per measurement (default 6 when saving or comparing, else 1: in the test)")
    g.addoption("--cgl-budget", type=float, default=30.0, metavar="S",
                help="seconds a test's measurement may take (default 30)")
    g.addoption("--cgl-max-samples", type=int, default=200, help="samples per way and process at most (200)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cgl_budget(seconds=None, us=None, way='eager', clock='host'): what a "
                            "test's measurement may take (seconds) and, with us=, the most µs per call allowed")
    opt = config.option
    if opt.cgl_fail_on and not opt.cgl_compare:
        raise pytest.UsageError("--cgl-fail-on needs --cgl-compare DIR (the records to compare with)")
    processes = opt.cgl_processes
    if processes is None:
        processes = 6 if (opt.cgl_save or opt.cgl_compare) else 1
    if processes < 1:
        raise pytest.UsageError(f"--cgl-processes must be >= 1, got {processes}")
    if not (opt.cgl_budget > 0 and math.isfinite(opt.cgl_budget)):
        raise pytest.UsageError(f"--cgl-budget must be a finite number of seconds > 0, got {opt.cgl_budget}")
    if opt.cgl_max_samples < 1:
        raise pytest.UsageError(f"--cgl-max-samples must be >= 1, got {opt.cgl_max_samples}")
    if opt.cgl_compare and not Path(opt.cgl_compare).is_dir():
        what = "is not a folder" if Path(opt.cgl_compare).exists() else "does not exist"
        raise pytest.UsageError(f"--cgl-compare {opt.cgl_compare}: {what} (make it with --cgl-save DIR first)")
    threshold = _threshold(opt.cgl_threshold)
    config.stash[_SETTINGS] = Settings(save=opt.cgl_save, compare=opt.cgl_compare, fail_on=opt.cgl_fail_on,
                                       threshold=threshold, judge=opt.cgl_judge, processes=processes,
                                       budget_s=opt.cgl_budget,
                                       max_samples=max(6, opt.cgl_max_samples))
    config.stash[_STATE] = _State()


def _threshold(text: str) -> float:
    from ..bench.diff import parse_threshold
    from ..core.errors import InvalidArgumentError

    try:
        return parse_threshold(text)
    except InvalidArgumentError as e:
        raise pytest.UsageError(f"--cgl-threshold: {e}") from None


def pytest_unconfigure(config):
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


@pytest.fixture
def cgl_measure(request) -> Measurer:
    """Measure your work in a test: ``cgl_measure(work, setup=..., ways=...)`` takes what ``cugraphlab.measure``
    takes and returns its MeasureResult; with --cgl-save / --cgl-compare it is recorded and compared.

    Where no GPU answers (no driver, no device) a test that asks for it is skipped, with the reason in one line,
    as the project's own GPU tests are: a suite's CI without a GPU stays green, and nothing is saved."""
    state = request.config.stash[_STATE]
    reason = state.no_gpu_reason()
    if reason is not None:
        state.skipped += 1
        pytest.skip(f"cgl_measure: {reason}")
    return Measurer(request, request.config.stash[_SETTINGS], state)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_STATE, None)
    if state is None or not (state.measured or state.skipped):
        return
    s = config.stash[_SETTINGS]
    tr = terminalreporter
    tr.section("cugraphlab measure")
    if state.skipped:
        kept = [w for w, folder in (("saved to", s.save), ("compared with", s.compare)) if folder]
        tr.write_line(f"{state.skipped} test(s) skipped: {state.no_gpu_reason()}"
                      + (f" (nothing {' or '.join(w.split()[0] for w in kept)})" if kept else ""))
    if not state.measured:
        return
    where = f"{s.processes} process{'es' if s.processes > 1 else ''} per measurement"
    tr.write_line("held: how long the work runs on the GPU (calls queued behind a hold, no host gap); host: what a "
                  "call costs the test's thread")
    tr.write_line(f"{len(state.measured)} measurement(s), {where}"
                  + (f"; saved to {s.save}" if s.save else "")
                  + (f"; compared with {s.compare} (threshold {s.threshold:.0%})" if s.compare else ""))
    for nodeid, name, result, comparison in state.measured:
        label = nodeid + (f" [{name}]" if name else "")
        figures = ", ".join(f"{w.way} {w.host.median:.2f}" for w in result.ways if w.host is not None)
        line = f"{label}: host us/call {figures}"
        held = ", ".join(f"{w.way} {w.held.median:.2f}" if getattr(w, "held", None) is not None else f"{w.way} n/a"
                         for w in result.ways if w.host is not None and (getattr(w, "held", None) is not None
                                                                         or getattr(w, "gpu_note", "")))
        if held:
            line += f"; held (GPU) us/call {held}"
        if result.capture_failed:
            line += "; capture FAILED"
        if comparison is not None:
            line += f" | {comparison.summary()}"
        tr.write_line(line)
