"""benchmarks/measure_overhead.py's logic without a GPU: the fake driver, a stand-in for the native launch and for
the C loop (so the figures are the host's, never the H200's); it runs its rounds, pairs them and writes the JSON."""
from __future__ import annotations

import json

import pytest

import measure_overhead as bench
from fake_measure import install_measure_driver


class _Native:
    def fire(self):
        return None

    def close(self):
        pass


class _Floor:
    def launch_loop(self, launch):
        return lambda n: 3_500 * n  # "3.5 µs per launch", in ns as the C loop reports


def test_the_rounds_are_paired_and_written(tmp_path, monkeypatch, capsys):
    install_measure_driver(monkeypatch)
    monkeypatch.setattr("cugraphlab.core.launch.Launch.native", lambda self, **kw: _Native())
    monkeypatch.setattr("cugraphlab.bench.native.loops.NativeFloor", _Floor)
    code = bench.main([str(tmp_path), "--rounds", "6", "--calls", "20"])
    d = json.loads((tmp_path / "measure_overhead.json").read_text())
    assert set(d["pairs"]) == {"native", "callable"} and d["rounds"] == 6
    assert len(d["raw"]["native"]["measure"]) == len(d["raw"]["native"]["reference"]) == 6
    assert d["pairs"]["native"]["reference_us"] == 3.5 and d["pairs"]["native"]["adds"]["n"] == 6
    out = capsys.readouterr().out
    assert "measure(launch, ways=('native',))" in out and "goal <= 0.1 us" in out
    assert code in (0, 1)


# the fake driver runs no kernel: the script's bit check multiplies whatever the fake's memory holds
@pytest.mark.filterwarnings("ignore:overflow encountered in multiply:RuntimeWarning")
def test_the_parts_are_timed_in_the_same_rounds_and_written(tmp_path, monkeypatch, capsys):
    import measure_overhead_parts as parts

    install_measure_driver(monkeypatch)
    monkeypatch.setattr("cugraphlab.core.launch.Launch.native", lambda self, **kw: _Native())
    monkeypatch.setattr("cugraphlab.bench.native.loops.NativeFloor", _Floor)
    code = parts.main([str(tmp_path), "--rounds", "8", "--calls", "20"])
    d = json.loads((tmp_path / "measure_overhead_parts.json").read_text())
    assert set(d["raw"]) == {a for pair in parts.PARTS.values() for a in pair}
    assert all(len(v) == 8 for v in d["raw"].values())
    assert d["medians_us"]["c_loop"] == 3.5 and d["parts"]["fire_bare - c_loop"]["n"] == 8
    out = capsys.readouterr().out
    assert "native_measure - fire_events" in out and "bit-equal to NumPy" in out
    assert code in (0, 1)
