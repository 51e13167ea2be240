"""bench.timing's chunked loop on a fake driver with timing events (no GPU): the chunks partition the loop (host
times add up to the loop's, boundaries on whole grains), interleave keeps 10 samples per loop where asked and one
where a variant cannot be split, and Timings.keep writes the chunk samples a diff needs."""
from __future__ import annotations

import time

import pytest

from cugraphlab.bench.records.record import Record
from cugraphlab.bench.timing import CHUNKS, Variant, chunk_sizes, interleave, paced, timed_chunks, timed_loop
from fake_driver import patch_driver
from fake_timed_driver import TimedFakeDriver


@pytest.fixture
def timed_driver(monkeypatch):
    fake = TimedFakeDriver()
    patch_driver(monkeypatch, fake)
    yield fake
    assert fake.live() == [] and fake.released_twice() == []


def _spin(ns: int) -> None:
    end = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < end:
        pass


@pytest.mark.parametrize("iters, chunks, grain", [(5000, 10, 1), (5000, 10, 50), (5000, 10, 52), (100, 10, 50),
                                                  (7, 10, 1), (1, 10, 1), (30, 10, 50), (5000, 3, 7)])
def test_chunk_sizes_partition_the_loop_on_whole_grains(iters, chunks, grain):
    sizes = chunk_sizes(iters, chunks, grain)
    assert sum(sizes) == iters and 1 <= len(sizes) <= chunks and all(k > 0 for k in sizes)
    bounds = [sum(sizes[:i]) for i in range(1, len(sizes))]
    assert all(b % grain == 0 for b in bounds)  # every boundary between two whole graphs
    assert len(sizes) == min(chunks, iters // grain) or (len(sizes) == 1 and iters // grain <= 1)
    if len(sizes) > 1:
        assert max(sizes[:-1]) - min(sizes[:-1]) <= grain  # about equal


def test_chunk_sizes_leave_an_unsplittable_loop_whole():
    assert chunk_sizes(5000, 10, None) == [5000]
    assert chunk_sizes(5000, 1, 1) == [5000]
    assert chunk_sizes(5000, 10, 50) == [500] * 10


def test_timed_chunks_add_up_to_the_loop(timed_driver):
    from cugraphlab import Device

    calls = []

    def run(k):
        calls.append(k)
        _spin(2_000 * k)

    with Device(0) as dev, dev.create_stream() as s:
        events = [dev.create_event() for _ in range(5)]
        sizes = [40, 40, 40, 45]
        wall, device, walls, devs = timed_chunks(s, run, sizes, events)
        for e in events:
            e.close()
        assert calls == sizes
        assert len(walls) == len(devs) == 4
        assert sum(w * k for w, k in zip(walls, sizes)) == pytest.approx(wall * sum(sizes), rel=1e-9)
        assert sum(d * k for d, k in zip(devs, sizes)) == pytest.approx(device * sum(sizes), rel=1e-6)
        assert all(1.5 < w < 200 for w in walls)  # about 2 µs per iteration of spin, per iteration
        with pytest.raises(ValueError, match="5 events"):
            timed_chunks(s, run, sizes, events[:4])


def test_interleave_keeps_chunk_samples_and_the_loop_figures(timed_driver):
    from cugraphlab import Device

    seen = {"split": [], "whole": []}
    with Device(0) as dev, dev.create_stream() as s, dev.create_event() as start, dev.create_event() as end:
        variants = [Variant("split", s, lambda k: (seen["split"].append(k), _spin(1_000 * k)), lambda: None,
                            lambda: 0, grain=10),
                    Variant("whole", s, lambda k: (seen["whole"].append(k), _spin(300_000)), lambda: None,
                            lambda: 0, grain=None)]
        t = interleave(variants, 200, 3, start, end, chunks=CHUNKS)
    assert seen["split"] == [20] * 30 and seen["whole"] == [200] * 3
    split, whole = t["split"], t["whole"]
    assert len(split.wall_us) == len(split.device_us) == 3 and split.chunk_iters == 20
    assert len(split.wall_chunks) == len(split.device_chunks) == 30
    assert whole.wall_chunks == [] and whole.device_chunks == [] and len(whole.wall_us) == 3
    # the loop's figures come from the whole loop as before; its equal chunks average to them (device: exactly;
    # wall: each chunk the slower of host and device, here the same clock)
    for r in range(3):
        assert sum(split.device_chunks[10 * r:10 * r + 10]) / 10 == pytest.approx(split.device_us[r], rel=1e-6)
        assert sum(split.wall_chunks[10 * r:10 * r + 10]) / 10 == pytest.approx(split.wall_us[r], rel=0.05)
    rec = Record()
    split.keep(rec, "split")
    whole.keep(rec, "whole")
    assert len(rec.samples["split: wall"]["values"]) == 30 and rec.samples["split: device"]["clock"] == "device"
    assert len(rec.samples["whole: device"]["values"]) == 3


def test_interleave_without_chunks_is_one_sample_per_loop(timed_driver):
    from cugraphlab import Device

    with Device(0) as dev, dev.create_stream() as s, dev.create_event() as start, dev.create_event() as end:
        v = Variant("v", s, lambda k: _spin(500 * k), lambda: None, lambda: 0)
        t = interleave([v], 100, 2, start, end)
        assert t["v"].wall_chunks == [] and len(t["v"].wall_us) == 2
        w, d = timed_loop(s, v.run, 100, start, end)
        assert w > 0 and d > 0


def test_a_chunk_is_as_slow_as_its_slower_side():
    # host-bound chunks: the host's time; device-bound ones: the device's (the host ran ahead into the queue); the
    # chunk that waited for the queue to drain stays long
    host = [1.0, 1.0, 1.0, 9.0]
    device = [2.0, 0.5, 2.0, 2.0]
    assert paced(host, device) == [2.0, 1.0, 2.0, 9.0]
