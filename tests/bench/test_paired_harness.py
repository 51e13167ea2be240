"""bench.paired's harness on fake rigs: order, pairing, held figures, stop reasons, SM clock flags, the record."""
from __future__ import annotations

import json

import pytest

from cugraphlab.bench.paired.harness import PairedResult, result_from_run, run_paired
from cugraphlab.core.errors import CugraphlabError, InvalidArgumentError
from paired_fakes import FakeClock, FakeRig, fake_ways

MODES = (3.6, 5.5, 3.7, 5.4)  # µs: each fresh context lands in one host mode
COSTS = {"bindings": 1.0, "cugraphlab": 1.05, "same": 1.0, "c": 0.7}


def _run(costs=COSTS, noise=0.004, contexts=4, rounds=6, max_rounds=None, time_cap_s=60.0, mhz=1980.0,
         held_ok=True, held_launches=100, **kw):
    clock = FakeClock()
    rigs = []

    def open_rig(c):
        rig = FakeRig(c, MODES[c % len(MODES)], mhz=mhz, held_ok=held_ok)
        rigs.append(rig)
        return rig

    run = run_paired(open_rig, lambda rig: fake_ways(rig, costs, clock, noise=noise, seed=11), contexts=contexts,
                     rounds=rounds, max_rounds=max_rounds, launches=1000, held_launches=held_launches, warmup=10,
                     time_cap_s=time_cap_s, clock=clock, **kw)
    return run, rigs


def _rows(run):
    return {r.name: r for r in result_from_run(run, {"target": 0.01}, {}).ways}


def test_ratios_and_intervals_find_the_known_answer():
    run, rigs = _run()
    rows = _rows(run)
    assert list(rows) == ["bindings", "cugraphlab", "same", "c"]  # reference first
    assert rows["cugraphlab"].ratio.contains(1.05) and not rows["cugraphlab"].ratio.contains(1.0)
    assert rows["same"].ratio.contains(1.0)
    assert rows["c"].ratio.contains(0.7)
    assert rows["bindings"].ratio.median == pytest.approx(1.0)
    # the raw µs carry the modes: their interval is far wider than the ratio's
    assert rows["cugraphlab"].us.rel_half_width > 5 * rows["cugraphlab"].ratio.rel_half_width
    # Python adds (bindings - C) = 0.3 x the mode, per round
    assert rows["bindings"].vs_c_us.lo < 0.3 * 4.55 < rows["bindings"].vs_c_us.hi
    assert rows["c"].vs_c_us is None
    assert rows["cugraphlab"].per_context_us == pytest.approx([m * 1.05 for m in MODES], rel=0.02)
    assert all(r.closed for r in rigs)


def test_held_figures_and_their_ratio():
    run, _ = _run()
    rows = _rows(run)
    for name, row in rows.items():
        assert row.held_us.median == pytest.approx(0.9 * row.us.median, rel=0.05)
    assert rows["cugraphlab"].held_ratio.contains(1.05)


def test_held_timeouts_drop_the_held_figure():
    run, _ = _run(held_ok=False, contexts=1)
    assert run.held_timeouts == len(run.samples)
    rows = _rows(run)
    assert rows["bindings"].held_us is None and rows["bindings"].us is not None


def test_rounds_are_round_robin_and_each_block_is_drained_first():
    run, rigs = _run(contexts=1, rounds=4, noise=0.0)
    order = [[s.way for s in run.samples if s.round == r] for r in range(4)]
    names = list(COSTS)
    assert order == [names[r:] + names[:r] for r in range(4)]
    assert [s.slot for s in run.samples if s.round == 1] == [0, 1, 2, 3]
    timed = [x for x in rigs[0].log if not x.endswith(":1")]
    # warm-up first (one block per way), then per sample one long block and one held block
    assert len(timed) == len(names) + 2 * len(run.samples)
    assert rigs[0].drains >= len(run.samples) + len(names)


def test_stop_when_the_noise_target_is_reached():
    run, _ = _run(noise=0.0, rounds=5)
    assert all(c["rounds"] == 5 and c["stop"] == "spread" for c in run.contexts)
    assert all(r.stop == "spread" for r in _rows(run).values())


def test_stop_at_max_rounds_with_the_noise_left():
    run, _ = _run(noise=0.2, rounds=4, max_rounds=6)
    assert all(c["rounds"] == 6 and c["stop"] == "max_samples" for c in run.contexts)
    rows = _rows(run)
    assert rows["cugraphlab"].stop == "max_samples" and rows["cugraphlab"].noise > 0.01


def test_stop_at_the_time_cap_with_the_noise_left():
    run, _ = _run(noise=0.2, rounds=3, max_rounds=100, time_cap_s=1e-6)
    assert all(c["rounds"] == 3 and c["stop"] == "time_cap" for c in run.contexts)
    row = _rows(run)["cugraphlab"]
    assert row.stop == "time_cap" and row.noise > 0.01


def test_low_sm_clock_is_flagged():
    seq = iter([1980.0, 1400.0, 1500.0, 1485.0, 1490.0] * 1000)  # rated 1980: < 1485 is below 75%
    run, _ = _run(contexts=1, rounds=5, noise=0.0, mhz=lambda: next(seq))
    flagged = [s for s in run.samples if s.clock_low]
    assert flagged and all(s.sm_mhz < 0.75 * 1980 for s in flagged)
    assert all(not s.clock_low for s in run.samples if s.sm_mhz >= 1485.0)
    assert sum(r.clock_low for r in _rows(run).values()) == len(flagged)


def test_the_reference_must_be_measured():
    with pytest.raises(CugraphlabError, match="reference"):
        _run(costs={"cugraphlab": 1.0})


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError):
        _run(rounds=0)
    with pytest.raises(InvalidArgumentError):
        _run(rounds=5, max_rounds=3)
    with pytest.raises(InvalidArgumentError):
        _run(held_launches=5000)
    with pytest.raises(InvalidArgumentError):
        _run(target=2)


def test_a_failing_way_closes_the_rig_and_raises():
    clock = FakeClock()
    rigs = []

    def open_rig(c):
        rigs.append(FakeRig(c, 4.0))
        return rigs[-1]

    def ways_for(rig):
        ways, skipped = fake_ways(rig, {"bindings": 1.0}, clock)

        def broken(n):
            raise RuntimeError("cuLaunchKernel failed")

        from cugraphlab.bench.paired.ways import PairedWay

        return ways + [PairedWay("cugraphlab", broken)], skipped

    with pytest.raises(RuntimeError, match="cuLaunchKernel failed"):
        run_paired(open_rig, ways_for, contexts=2, rounds=2, launches=10, held_launches=0, clock=clock)
    assert len(rigs) == 1 and rigs[0].closed


def test_record_round_trips_to_json_and_keeps_samples():
    run, _ = _run(contexts=2, rounds=3)
    rec = result_from_run(run, {"target": 0.01, "size": 1024}, {"gpu": {"name": "fake"}})
    d = json.loads(json.dumps(rec.to_dict()))
    assert d["kind"] == "cugraphlab.paired" and d["schema"] == PairedResult.SCHEMA
    PairedResult.check(d)
    assert set(d["samples"]) >= {"bindings us/launch", "c us/launch", "c held us/launch"}
    assert d["samples"]["c us/launch"]["clock"] == "c_monotonic"
    assert len(d["rows"]) == len(run.samples) and {"sm_mhz", "clock_low", "round", "slot"} <= set(d["rows"][0])
    assert d["c_floor_us"]["median"] == pytest.approx(0.7 * 4.55, rel=0.25)
    assert d["python_adds_us"]["median"] > 0
    assert "c_monotonic" in d["clocks"] and "sm_clock" in d["clocks"]
    assert rec.way("cugraphlab").ratio.contains(1.05)
    with pytest.raises(KeyError):
        rec.way("nope")
