"""bench.workers: spawned worker processes report results, failures, hangs and crashes; the parent never hangs."""
from __future__ import annotations

import os
import time

import pytest

from cugraphlab.bench import workers
from cugraphlab.bench.workers import run_workers
from cugraphlab.core.errors import InvalidArgumentError


# Targets: top-level functions of this module (spawn sends them by name and the child imports this module).
def report_pid(value):
    workers.wait_start()
    return {"value": value, "pid": os.getpid(), "in_worker": workers.in_worker(), "t": time.perf_counter_ns()}


def raise_value_error(message):
    raise ValueError(message)


def hang(seconds):
    time.sleep(seconds)
    return {"never": True}


def exit_hard(code):
    os._exit(code)


def fail_or_wait(index):
    if index == 0:
        raise RuntimeError("set-up failed")
    workers.wait_start()  # worker 0 never gets here: the start line must break, not hang
    return {"index": index}


def unpicklable():
    return {"f": lambda: 0}


def plain(value):
    return {"value": value, "in_worker": workers.in_worker()}


def test_results_come_back_in_order_from_separate_processes():
    t0 = time.perf_counter()
    out = run_workers(report_pid, [{"value": i} for i in range(3)], timeout_s=60)
    assert [o.index for o in out] == [0, 1, 2]
    assert all(o.ok and o.error is None for o in out), out
    assert [o.result["value"] for o in out] == [0, 1, 2]
    pids = {o.result["pid"] for o in out}
    assert len(pids) == 3 and os.getpid() not in pids
    assert all(o.result["in_worker"] for o in out)
    # they left the start line together: within a fraction of a second of each other
    ts = [o.result["t"] for o in out]
    assert (max(ts) - min(ts)) / 1e9 < 0.5
    assert time.perf_counter() - t0 < 30


def test_without_start_together_there_is_no_gate():
    [o] = run_workers(plain, [{"value": 7}], timeout_s=60, start_together=False)
    assert o.ok and o.result == {"value": 7, "in_worker": False}


def test_a_raising_worker_is_reported_and_breaks_the_start_line_for_the_others():
    t0 = time.perf_counter()
    out = run_workers(raise_value_error, [{"message": "bad input 42"}], timeout_s=30)
    assert not out[0].ok and out[0].result is None
    assert out[0].error == "ValueError: bad input 42"
    assert time.perf_counter() - t0 < 15


def test_one_failure_releases_the_workers_waiting_at_the_start_line():
    t0 = time.perf_counter()
    out = run_workers(fail_or_wait, [{"index": 0}, {"index": 1}], timeout_s=60)
    assert out[0].error == "RuntimeError: set-up failed"
    assert not out[1].ok and "WorkerStartError" in out[1].error and "another worker failed" in out[1].error
    assert time.perf_counter() - t0 < 15  # far below the 60 s timeout


def test_a_hanging_worker_is_stopped_at_the_timeout():
    t0 = time.perf_counter()
    out = run_workers(hang, [{"seconds": 120}, {"seconds": 0}], timeout_s=2.5, start_together=False)
    elapsed = time.perf_counter() - t0
    assert not out[0].ok and out[0].error == "timed out after 2.5 s"
    assert out[1].ok and out[1].result == {"never": True}
    assert elapsed < 12


def test_a_worker_that_exits_without_a_result_is_reported_with_its_code():
    t0 = time.perf_counter()
    [o] = run_workers(exit_hard, [{"code": 3}], timeout_s=30)
    assert not o.ok and "exited with code 3" in o.error
    assert time.perf_counter() - t0 < 15


def test_an_unpicklable_result_is_an_error_not_a_hang():
    [o] = run_workers(unpicklable, [{}], timeout_s=30, start_together=False)
    assert not o.ok and ("pickle" in o.error.lower() or "attribute" in o.error.lower())


def test_targets_must_be_importable_by_name():
    with pytest.raises(InvalidArgumentError, match="top-level function"):
        run_workers(lambda: 0, [{}], timeout_s=5)

    def local():
        return 0

    with pytest.raises(InvalidArgumentError):
        run_workers(local, [{}], timeout_s=5)
    with pytest.raises(InvalidArgumentError, match="timeout"):
        run_workers(plain, [{"value": 1}], timeout_s=0)
    assert run_workers(plain, [], timeout_s=5) == []
