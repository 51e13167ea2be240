"""benchmarks/diff_check.py's logic on a fake driver with timing events (no GPU): three records of the right kind
and rows, the delayed one found SLOWER by diff, the repeat not; and the files it writes."""
from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import pytest

from fake_driver import patch_driver

TESTS = pathlib.Path(__file__).resolve().parents[1]

from fake_timed_driver import TimedFakeDriver

SCRIPT = TESTS.parent / "benchmarks" / "diff_check.py"


def _script():
    if "diff_check" not in sys.modules:  # registered before it runs: its dataclass looks its module up
        spec = importlib.util.spec_from_file_location("diff_check", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["diff_check"] = module
        spec.loader.exec_module(module)
    return sys.modules["diff_check"]


@pytest.fixture
def timed_driver(monkeypatch):
    fake = TimedFakeDriver()
    patch_driver(monkeypatch, fake)
    yield fake
    assert fake.live() == [] and fake.released_twice() == []


def test_the_check_finds_the_delay_and_not_the_repeat(timed_driver, tmp_path, capsys):
    dc = _script()
    rc = dc.main([str(tmp_path), "--samples", "20", "--launches", "500"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.rstrip().endswith("diff check passed")
    for role in ("base", "delayed", "repeat"):
        d = json.loads((tmp_path / f"latency_probe_{role}.json").read_text())
        assert d["kind"] == "cugraphlab.study.diff_check.probe" and d["schema"] == 1 and d["env"]["injected"]["role"] == role
        assert set(d["samples"]) == {dc.HOST_ROW, dc.DEVICE_ROW}
        assert [len(s["values"]) for s in d["samples"].values()] == [20, 20]
        assert {s["clock"] for s in d["samples"].values()} == {"host_call", "device"}
    delayed = json.loads((tmp_path / "diff_delayed.json").read_text())
    assert delayed["counts"]["SLOWER"] == 2
    repeat = json.loads((tmp_path / "diff_repeat.json").read_text())
    assert repeat["counts"]["SLOWER"] == repeat["counts"]["FASTER"] == 0


def test_check_verdicts_reports_a_wrong_verdict(timed_driver):
    dc = _script()
    from cugraphlab import Device

    with Device(0) as dev:
        recs = dc.probe(dev, samples=12, launches=200, delay_ns=1000)
    base, delayed = recs["base"].to_dict(), recs["delayed"].to_dict()
    # the delayed record in the repeat's place: the check must say so
    _, _, wrong = dc.check_verdicts(base, delayed, base)
    assert ("repeat", dc.HOST_ROW, "SLOWER") in wrong and any(w[0] == "delayed" for w in wrong)
