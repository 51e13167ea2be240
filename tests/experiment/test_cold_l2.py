"""The cold-L2 fused rotation without a GPU: how many sets, what a run enqueues, that every handle is freed, the
record's roof and its text, and the ``run --cold-l2`` option."""
from __future__ import annotations

import pytest

from cugraphlab.bench.probes.copy_roof import CopyBandwidth
from cugraphlab.bench.run import COLD_MODE, roof_entry
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.experiment.cold_l2 import ColdFused, fused_bytes, sets_for
from cugraphlab.report.run import roof_lines

MIB = 2 ** 20


def test_fused_bytes_are_x_y_read_and_out_written():
    assert fused_bytes(1 << 20) == 12 * MIB
    assert fused_bytes(1024) == 12 * 1024


@pytest.mark.parametrize("l2, set_bytes, expected", [
    (50 * 10 ** 6, 12 * MIB, 8),      # 8 x 12 MiB = 100.7 MB > 2 x 50 MB
    (60 * MIB, 12 * MIB, 11),         # 11 x 12 = 132 MiB > 120 MiB (10 would be equal: not enough)
    (50 * MIB, 768 * MIB, 2),         # one set alone exceeds twice the L2: still two, so a set is never re-read warm
    (0, 12, 2),
])
def test_sets_exceed_twice_the_l2(l2, set_bytes, expected):
    k = sets_for(l2, set_bytes)
    assert k == expected
    assert k * set_bytes > 2 * l2
    assert k == 2 or (k - 1) * set_bytes <= 2 * l2  # the fewest that do


def test_sets_for_rejects_nonsense():
    with pytest.raises(InvalidArgumentError):
        sets_for(10, 0)
    with pytest.raises(InvalidArgumentError):
        sets_for(10, 4, factor=0)


class _Recorder:
    def __init__(self):
        self.calls = []

    def graphs(self, n, unroll):
        self.calls.append(("graphs", n, unroll))

    def eager(self, rounds):
        self.calls.append(("eager", rounds))


def test_rotation_on_the_fake_driver_enqueues_exactly_iters_launches(fake_driver):
    from cugraphlab import Chain, Device

    with Device(0) as dev, Chain(dev, n=1024) as chain:
        cold = ColdFused.from_chain(chain, sets=9)
        try:
            assert cold.sets == 9 and cold.unroll == 6 and cold.per_graph == 54  # ceil(50 / 9) rotations per graph
            assert len(cold.launches) == 9 and len({id(s.x) for s in cold.set_buffers}) == 9
            assert all(launch.config == chain.config for launch in cold.launches)  # the warm fused row's shape
            cold.run(54 * 3)  # real runner on the fake driver: capture, instantiate, launch
            real_runner = cold.runner
            rec, singles = _Recorder(), []
            cold.runner = rec
            cold.launches = [lambda i=i: singles.append(i) for i in range(9)]
            cold.run(5000)  # 92 graphs of 54, 3 rotations of 9, then sets 0..4
            assert rec.calls == [("graphs", 92, 6), ("eager", 3)] and singles == [0, 1, 2, 3, 4]
            assert 92 * 54 + 3 * 9 + 5 == 5000
            cold.runner = real_runner
        finally:
            cold.close()
    live = [(hex(h), k) for h, k in fake_driver.made.items() if fake_driver.released[h] == 0]
    assert live == []


def test_default_sets_follow_the_l2_attribute(fake_driver, monkeypatch):
    from cugraphlab import Chain, Device

    with Device(0) as dev, Chain(dev, n=1 << 16) as chain:
        monkeypatch.setattr(type(dev), "attribute",
                            lambda self, name: 4 * MIB if name == "L2_CACHE_SIZE" else 132)
        with ColdFused.from_chain(chain) as cold:
            assert cold.l2_bytes == 4 * MIB and cold.set_bytes == 768 * 1024
            assert cold.sets == 11 and cold.rotation_bytes > 2 * cold.l2_bytes
            assert "11 rotating sets" in cold.describe()


def _copy(gbps):
    return CopyBandwidth(256 * MIB, 10, summarize([gbps] * 3, unit="GB/s", clock="copy"))


def test_roof_entry_and_its_lines_say_warm_is_l2_not_hbm():
    roof = roof_entry(bytes_per_iter=12 * MIB, warm_us=2.28, cold_us=3.10, copy=_copy(4200.0), l2_bytes=50 * MIB,
                      sets=9, rotation_bytes=108 * MIB, method="rotating input sets (launch i uses set i % K)")
    assert roof["fused_gbps"] == pytest.approx(12 * MIB / 2.28 / 1e3)
    assert roof["fused_cold_gbps"] == pytest.approx(12 * MIB / 3.10 / 1e3)
    assert roof["fused_gbps"] > roof["copy_gbps"] > roof["fused_cold_gbps"]
    text = "\n".join(roof_lines(roof))
    assert "from L2, it does not beat HBM" in text and "cold L2 4,059 GB/s" in text
    assert "9 rotating input sets of 12.0 MiB = 108 MiB against an L2 of 50 MiB" in text
    assert roof_lines(None) == []


def test_run_parser_has_cold_l2_off_by_default():
    import argparse

    from cugraphlab.cli.run import add_commands

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    add_commands(sub, argparse.ArgumentParser(add_help=False))
    assert p.parse_args(["run"]).cold_l2 is False
    assert p.parse_args(["run", "--cold-l2"]).cold_l2 is True
    assert COLD_MODE == "fused (cold L2)"
