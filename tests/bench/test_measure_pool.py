"""bench.measure.pool: the session's worker processes, asked one after the other; a worker that hangs or dies is
replaced and says so in one line (no GPU: the targets are tests/helpers/pool_targets.py)."""
from __future__ import annotations

import os

from pool_targets import pid_reply


def test_each_request_goes_to_every_worker_in_turn_and_the_first_calibrates():
    from cugraphlab.bench.measure.pool import WorkerPool

    with WorkerPool(3, target=pid_reply, device=None) as pool:
        first = pool.run({}, {"calls": None}, timeout_s=60)
        again = pool.run({}, {"calls": 11}, timeout_s=60)
    pids = [r["part"]["pid"] for r in first]
    assert len(set(pids)) == 3 and os.getpid() not in pids
    assert [r["part"]["pid"] for r in again] == pids  # the same processes for the whole session
    assert [r["part"]["calls"] for r in first] == [7, 7, 7] and [r["part"]["calls"] for r in again] == [11] * 3


def test_a_worker_that_hangs_or_dies_is_replaced_and_the_reply_says_why():
    from cugraphlab.bench.measure.pool import WorkerPool

    with WorkerPool(2, target=pid_reply, device=None) as pool:
        before = [r["part"]["pid"] for r in pool.run({}, {}, timeout_s=60)]
        hung = pool.run({"sleep": 30}, {}, timeout_s=1.0)
        assert hung == [{"error": "process 1 timed out after 1 s", "class": ""}]
        died = pool.run({"die": True}, {}, timeout_s=60)
        assert died[0]["error"].startswith("process 1 exited (code 3)")
        after = [r["part"]["pid"] for r in pool.run({}, {}, timeout_s=60)]
        assert pool.replaced == 2 and after[0] not in before and after[1] == before[1]


def test_a_workers_start_up_is_not_charged_to_the_requests_timeout(monkeypatch):
    """Workers that take 3 s to start answer a request allowed 1 s: the clock starts once each is up."""
    from cugraphlab.bench.measure.pool import WorkerPool
    from slow_start_targets import quick_reply

    monkeypatch.setenv("CGL_TEST_SLOW_START", "3")
    with WorkerPool(2, target=quick_reply, device=None) as pool:
        replies = pool.run({}, {}, timeout_s=1.0)
        assert [sorted(r) for r in replies] == [["config", "env", "part"]] * 2, replies
        assert pool.ready == [True, True] and pool.replaced == 0


def test_a_worker_that_never_starts_is_replaced_and_says_so(monkeypatch):
    from cugraphlab.bench.measure.pool import WorkerPool
    from slow_start_targets import quick_reply

    monkeypatch.setenv("CGL_TEST_SLOW_START", "30")
    with WorkerPool(1, target=quick_reply, device=None, start_timeout_s=1.0) as pool:
        assert pool.run({}, {}, timeout_s=60) == [{"error": "process 1 did not start within 1 s", "class": ""}]
        assert pool.replaced == 1 and pool.ready == [False]
        monkeypatch.setenv("CGL_TEST_SLOW_START", "0")
