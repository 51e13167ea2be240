"""The held and cold clocks of measure (bench/measure/held.py) on the fake driver, which simulates the hold kernel
(started on launch; let go by its timeout when the host waits for the held stream before releasing it): the order
of the recipes' calls, K, and a work that synchronises refused with its note. Figures here are the host's: only
the logic is tested, never a timing."""
from __future__ import annotations

import pytest

from fake_measure import fake_kernel, install_measure_driver, memset_work

QUICK = dict(sm_clock=False, time_budget_s=0.3, min_samples=6, max_samples=8)


@pytest.fixture
def fake(monkeypatch):
    return install_measure_driver(monkeypatch)


@pytest.fixture
def dev(fake):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def _way(launch, per_call=1):
    from cugraphlab.bench.measure.way import Way

    def run(n):
        for _ in range(n * per_call):
            launch()

    return Way("eager", "test", run, per_call=per_call)


def test_held_queues_k_calls_behind_the_hold_between_the_events_then_releases(dev, fake):
    from cugraphlab.bench.measure.held import HELD_CALLS, GpuClocks

    with dev.create_stream() as s:
        launch = fake_kernel(dev, s)
        clocks = GpuClocks(dev, s)
        try:
            way = _way(launch)
            fake.log.clear()
            us = clocks.held(way)
            start, end = clocks.start.handle, clocks.end.handle
        finally:
            clocks.close()
    k = HELD_CALLS
    assert us is not None and us >= 0
    assert fake.log == ([("launch", "hold"), ("record", int(start))] + [("launch", "noop")] * k
                        + [("record", int(end)), ("sync", True)])
    assert fake.timeouts == 0


def test_cold_flushes_the_l2_then_holds_and_times_one_call(dev, fake):
    from cugraphlab.bench.measure.held import GpuClocks

    with dev.create_stream() as s:
        launch = fake_kernel(dev, s)
        clocks = GpuClocks(dev, s)
        try:
            fake.log.clear()
            us = clocks.cold(_way(launch))
            start, end = int(clocks.start.handle), int(clocks.end.handle)
        finally:
            clocks.close()
    assert us is not None
    assert fake.log == [("memset",), ("launch", "hold"), ("record", start), ("launch", "noop"), ("record", end),
                        ("sync", True)]


def test_k_fits_the_launch_queue_for_a_list_of_launches(dev):
    from cugraphlab.bench.measure.held import HELD_CALLS, MAX_QUEUED_LAUNCHES, GpuClocks

    with dev.create_stream() as s:
        launch = fake_kernel(dev, s)
        clocks = GpuClocks(dev, s)
        try:
            assert clocks.calls(_way(launch, per_call=1)) == HELD_CALLS
            many = _way(launch, per_call=4)
            many.name = "four"
            assert clocks.calls(many) == MAX_QUEUED_LAUNCHES // 4
            assert clocks.calls(many) * 4 <= MAX_QUEUED_LAUNCHES
            lots = _way(launch, per_call=100)
            lots.name = "a hundred"
            assert clocks.calls(lots) == 1  # one call at least, whatever it queues
        finally:
            clocks.close()


def test_a_work_that_synchronises_cannot_be_held_and_its_rows_say_so(dev, fake):
    import cugraphlab as cgl
    from cugraphlab.bench.measure.held import SYNCHRONISES

    fn, buf = memset_work(dev)

    def synchronising(stream):
        fn(stream)
        stream.synchronize()  # waits for the held stream: the hold lets go by its timeout

    r = cgl.measure(synchronising, device=dev, ways=("eager",), **QUICK)
    w = r["eager"]
    assert w.measured and w.host is not None and w.device is not None  # the host rows stay
    assert w.held is None and w.cold is None and w.gpu_note == SYNCHRONISES
    assert "eager: held" not in r.samples and "eager: cold" not in r.samples
    assert fake.timeouts == 2  # K calls (K dropped to 1: a callable's launches per call are unknown), then one
    from cugraphlab.report.measure_work import render_measure

    text = render_measure(r)
    assert "held: n/a: the work synchronises" in text


def test_a_callable_that_queues_ahead_is_held(dev, fake):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    r = cgl.measure(fn, device=dev, ways=("eager", "graph"), **QUICK)
    for name in ("eager", "graph"):
        assert r[name].held is not None and r[name].cold is not None and r[name].gpu_note == ""
    assert fake.timeouts == 0


def test_gpu_clocks_false_leaves_the_held_and_cold_rows_out(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    r = cgl.measure(fn, device=dev, ways=("eager",), gpu_clocks=False, **QUICK)
    assert r["eager"].held is None and r["eager"].cold is None and r.sampling["gpu_clocks"] is False


def test_k_halves_after_a_timeout_until_the_calls_fit_the_queue(dev, fake):
    from cugraphlab.bench.measure.held import HELD_CALLS, GpuClocks
    from cugraphlab.bench.measure.way import Way

    with dev.create_stream() as s:
        launch = fake_kernel(dev, s)

        def run(n):  # a queue that holds 4 calls: a fifth blocks the host (here: a wait for the held stream)
            for i in range(n):
                if i == 4:
                    s.synchronize()
                launch()

        way = Way("eager", "test", run, per_call=1)
        clocks = GpuClocks(dev, s)
        try:
            got = [clocks.held(way) for _ in range(5)]
            k = clocks.calls(way)
        finally:
            clocks.close()
    assert got[:3] == [None, None, None] and got[3] is not None and got[4] is not None  # 32, 16, 8 refused; 4 fits
    assert k == HELD_CALLS // 8 == 4 and fake.timeouts == 3 and clocks.note("eager") == ""
