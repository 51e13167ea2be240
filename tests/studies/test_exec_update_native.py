"""The native ways of the paired cuGraphExecUpdate measurement without a GPU: real NativeExecUpdate /
NativeKernelNodeSetParams objects (C built with the system compiler) calling ctypes callbacks that update the fake
driver's ledger; they sit beside C in every case, alternate the case's graphs on the one executable, and a native
way that does not update fails its check. Without the C loop the native ways are left out, with the reason."""
from __future__ import annotations

import shutil

import pytest

from cugraphlab.core.cache import Cache
from fake_driver import patch_driver
from fake_exec_update import ExecUpdateFakeDriver, FakeUpdateFloor
from fake_native_ways import native_factories

OPS = ("add", "mul", "sub", "relu")
pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")


@pytest.fixture
def update_driver(monkeypatch):
    fake = ExecUpdateFakeDriver()
    patch_driver(monkeypatch, fake)
    yield fake


def _measure(fake, monkeypatch, cache, *, factories=True, noop_set_params=False, floor=True):
    import studies.exec_update.measure as eu
    from cugraphlab import Device
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.graphs.update import DirectExecUpdate

    state = {}

    def check(cg, expected, which, label):
        if "sets" not in state:  # capture order of measure_exec_update: ChainGraph's own (A), 'same' (A), B
            made = fake.captured[state["start"]:]
            state["sets"] = {made[0]: 0, made[1]: 0, made[2]: 1}
        return state["sets"][fake.exec_graph[int(cg.exec.handle)]] == which

    monkeypatch.setattr(eu, "_check_exec", check)
    made = native_factories(fake, cache, noop_set_params=noop_set_params) if factories else None
    with Device(0) as dev, Chain(dev, OPS, 4096, seed=1) as chain:
        state["start"] = len(fake.captured)
        r = eu.measure_exec_update(chain, k=4, rounds=3, warmup=1,
                                   floor_factory=(lambda: FakeUpdateFloor(fake)) if floor else _no_floor,
                                   direct_factory=lambda exe: DirectExecUpdate(exe, fn=fake.libcuda_fn()),
                                   native_factories=made)
    return r, state


def _no_floor():
    from cugraphlab.core.errors import UnsupportedError

    raise UnsupportedError("native code (exec_update_loop): no C compiler")


def test_the_native_ways_sit_beside_c_on_every_case_and_are_checked(update_driver, monkeypatch, tmp_path):
    from studies.exec_update.measure import UPDATE_CASES, UPDATE_WAYS
    from studies.exec_update.native import NATIVE_WAYS

    fake = update_driver
    r, state = _measure(fake, monkeypatch, Cache(tmp_path))
    assert {(row.case, row.way) for row in r.rows} == {(c, w) for c in UPDATE_CASES
                                                      for w in {**UPDATE_WAYS, **NATIVE_WAYS}}
    assert r.verified
    for case in UPDATE_CASES:
        for way in NATIVE_WAYS:
            row = r.row(case, way)
            assert row.verified is True and row.minus_c is not None and row.us.clock == "host_call"
    assert r.config["ways"]["native"] == NATIVE_WAYS["native"] and r.config["native_ways"] == "built"
    # 'changed parameters' alternates B and A through the native update, on the one executable
    native = [g for who, _, g in fake.updates if who == "native"]
    assert native and {state["sets"][g] for g in native} == {0, 1}
    assert {e for _, e, _ in fake.updates} == {int(e) for e, _ in fake.set_params_calls}
    # every set-params call got a struct whose kernelParams is its launch's packed arguments, 4 nodes per update
    assert fake.bad_params == 0 and len(fake.set_params_calls) % 4 == 0
    assert len({n for _, n in fake.set_params_calls}) == 4


def test_a_native_way_that_does_not_update_fails_its_check(update_driver, monkeypatch, tmp_path):
    r, _ = _measure(update_driver, monkeypatch, Cache(tmp_path), noop_set_params=True)
    assert not r.verified
    assert r.row("changed parameters", "native set params, all nodes").verified is False
    assert r.row("changed parameters", "native").verified is True


def test_without_the_c_loop_the_native_ways_are_left_out_with_the_reason(update_driver, monkeypatch, tmp_path):
    r, _ = _measure(update_driver, monkeypatch, Cache(tmp_path), factories=False, floor=False)
    assert not any(row.way.startswith("native") for row in r.rows)
    assert "no C update loop" in r.config["native_ways"]
    r, _ = _measure(update_driver, monkeypatch, Cache(tmp_path), factories=False)  # a floor without entry points
    assert not any(row.way.startswith("native") for row in r.rows)
    assert "no cuGraphExecUpdate_v2 entry point" in r.config["native_ways"]


def test_the_script_and_the_table_read_the_native_rows():
    import importlib.util
    from pathlib import Path

    from cugraphlab.bench.stats.summary import summarize
    from studies.exec_update.measure import ExecUpdatePaired, PairedUpdateRow
    from studies.exec_update.report import render_exec_update

    def s(v, clock="host_call"):
        return summarize([v * 0.99, v, v * 1.01], unit="us", clock=clock)

    rows = []
    for case, c, nat, sp in (("own graph", 0.25, 0.30, 0.90), ("changed parameters", 0.61, 0.66, 1.20)):
        rows += [PairedUpdateRow(case, "C", s(c, "c_monotonic"), None, True),
                 PairedUpdateRow(case, "bindings", s(c + 1.0), s(1.0), True),
                 PairedUpdateRow(case, "native", s(nat), s(nat - c), True),
                 PairedUpdateRow(case, "native set params, all nodes", s(sp), s(sp - c), True)]
    r = ExecUpdatePaired(config={"chain": "add -> mul", "kernel_nodes": 4, "k": 50, "rounds": 10,
                                 "native_ways": "built"}, rows=rows, clocks={"c_monotonic": "C clock"})
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "studies" / "exec_update" / "run.py"
    spec = importlib.util.spec_from_file_location("exec_update_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lines = mod.native_lines(r)
    assert lines[0] == ("own graph: native 0.300 us (C 0.250 us, native adds +0.050), goal <= 0.5 us met; "
                        "4 native set params 0.900 us per update (+0.600 against one native update).")
    assert "changed parameters: native 0.660 us" in lines[1] and "goal <= 0.5 us not met" in lines[1]
    text = render_exec_update(r)
    assert "native set params, all nodes" in text and "cheapest from Python native 0.300 us" in text
    r.config["native_ways"] = "no C update loop (the native ways call its entry points)"
    assert mod.native_lines(r) == ["native ways: not measured (no C update loop (the native ways call its entry "
                                   "points))"]
