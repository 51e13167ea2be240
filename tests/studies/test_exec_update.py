"""The paired cuGraphExecUpdate measurement without a GPU: the C loop (built with the system compiler) calls a fake
libcuda function as a C program would; every way updates the very executable from the graphs of its case,
alternating; each way's check sees whether the executable really moved to set B and back; the table reads."""
from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError
from fake_driver import patch_driver
from fake_exec_update import PROTO, ExecUpdateFakeDriver, FakeUpdateFloor

OPS = ("add", "mul", "sub", "relu")
HAS_CC = shutil.which("cc") is not None or shutil.which("gcc") is not None
BIG = 0x7F12_3456_7890


class _H:
    def __init__(self, h):
        self.handle = h


def _entry(seen, fail_at=None):
    def c_fn(exe, graph, info):
        seen.append((exe, graph, bool(info)))
        return 910 if fail_at is not None and len(seen) == fail_at else 0  # CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE

    fn = PROTO(c_fn)
    return fn, {"cuGraphExecUpdate_v2": ctypes.cast(fn, ctypes.c_void_p).value}


@pytest.mark.skipif(not HAS_CC, reason="no C compiler on this machine")
def test_the_c_loop_alternates_the_graphs_with_64_bit_handles_and_a_result_info(tmp_path):
    from studies.exec_update.c_loop import UpdateFloor

    seen = []
    fn, entry = _entry(seen)
    floor = UpdateFloor(entry=entry, cache=Cache(tmp_path))
    loop = floor.update_loop(_H(BIG), [_H(BIG + 0x100), _H(BIG + 0x200)])
    assert loop(6) >= 0
    assert seen == [(BIG, BIG + 0x100 * (1 + i % 2), True) for i in range(6)]
    each = loop.each(4)
    assert len(each) == 4 and all(v >= 0 for v in each) and len(seen) == 10
    assert UpdateFloor(entry=entry, cache=Cache(tmp_path)).cache_hit


@pytest.mark.skipif(not HAS_CC, reason="no C compiler on this machine")
def test_a_refused_update_in_the_c_loop_is_a_typed_error(tmp_path):
    from studies.exec_update.c_loop import UpdateFloor

    seen = []
    fn, entry = _entry(seen, fail_at=3)
    loop = UpdateFloor(entry=entry, cache=Cache(tmp_path)).update_loop(1, [2])
    with pytest.raises(CudaError) as e:
        loop(10)
    assert e.value.name == "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE" and "after 2 successful calls" in str(e.value)
    assert len(seen) == 3
    with pytest.raises(ValueError):
        UpdateFloor(entry=entry, cache=Cache(tmp_path)).update_loop(1, [])


@pytest.fixture
def update_driver(monkeypatch):
    fake = ExecUpdateFakeDriver()
    patch_driver(monkeypatch, fake)
    yield fake


def _sets_of(fake, start):
    """Graph handle -> input set, from the capture order of measure_exec_update: ChainGraph's own (A), 'same' (A),
    'changed' (B)."""
    made = fake.captured[start:]
    assert len(made) == 3
    return {made[0]: 0, made[1]: 0, made[2]: 1}


def _measure(fake, monkeypatch, direct_factory=None, **kw):
    import studies.exec_update.measure as eu
    from cugraphlab import Device
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.graphs.update import DirectExecUpdate

    checks = []
    state = {}

    def check(cg, expected, which, label):
        sets = state.setdefault("sets", _sets_of(fake, state["start"]))
        ok = sets[fake.exec_graph[int(cg.exec.handle)]] == which
        checks.append((label, ok))
        return ok

    monkeypatch.setattr(eu, "_check_exec", check)
    direct_factory = direct_factory or (lambda exe: DirectExecUpdate(exe, fn=fake.libcuda_fn()))
    with Device(0) as dev, Chain(dev, OPS, 4096, seed=1) as chain:
        state["start"] = len(fake.captured)
        r = eu.measure_exec_update(chain, k=4, rounds=3, warmup=1, floor_factory=lambda: FakeUpdateFloor(fake),
                                   direct_factory=direct_factory, **kw)
    return r, checks


def test_every_way_on_every_case_is_paired_with_c_and_checked(update_driver, monkeypatch):
    from studies.exec_update.measure import UPDATE_CASES, UPDATE_WAYS

    fake = update_driver
    r, checks = _measure(fake, monkeypatch)
    assert {(row.case, row.way) for row in r.rows} == {(c, w) for c in UPDATE_CASES for w in UPDATE_WAYS}
    assert r.verified and len(checks) == 2 * len(UPDATE_WAYS)
    assert r.row("own graph", "C").us.median == pytest.approx(0.15)
    assert r.row("changed parameters", "bindings").minus_c is not None
    assert r.row("own graph", "C").minus_c is None
    assert r.row("changed parameters", "bindings, each call timed").us.clock == "host_api"
    # 'changed parameters' alternates B, A within a block, on the same executable, through every way
    sets = _sets_of(fake, len(fake.captured) - 3)
    exes = {e for _, e, _ in fake.updates}
    assert len(exes) == 1
    by_who = {}
    for who, _, g in fake.updates:
        by_who.setdefault(who, []).append(sets[g])
    assert set(by_who) == {"C", "bindings", "ctypes"}
    assert all(1 in v and 0 in v for v in by_who.values())
    assert "c_monotonic" in r.clocks and r.to_dict()["kind"] == "cugraphlab.study.exec_update.paired"
    assert any(label.startswith("changed parameters | ") for label in r.samples)


def test_a_way_that_does_not_update_fails_its_check(update_driver, monkeypatch):
    from cugraphlab.graphs.update import DirectExecUpdate

    fake = update_driver
    r, _ = _measure(fake, monkeypatch, direct_factory=lambda exe: DirectExecUpdate(exe, fn=fake.libcuda_fn(noop=True)))
    assert not r.verified
    assert r.row("changed parameters", "ctypes, bound partial").verified is False
    assert r.row("changed parameters", "bindings").verified is True


def test_without_a_c_compiler_the_c_rows_say_why(update_driver, monkeypatch):
    import studies.exec_update.measure as eu
    from cugraphlab import Device
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.graphs.update import DirectExecUpdate

    fake = update_driver
    monkeypatch.setattr(eu, "_check_exec", lambda cg, expected, which, label: True)

    def no_cc():
        raise UnsupportedError("native code (exec_update_loop): no C compiler (none of cc, gcc, clang is on PATH)")

    with Device(0) as dev, Chain(dev, OPS, 4096, seed=1) as chain:
        r = eu.measure_exec_update(chain, k=2, rounds=2, warmup=0, floor_factory=no_cc,
                                   direct_factory=lambda exe: DirectExecUpdate(exe, fn=fake.libcuda_fn()))
    c = r.row("own graph", "C")
    assert c.us is None and "no C compiler" in c.note
    assert r.row("own graph", "bindings").minus_c is None


def test_k_must_be_even(update_driver):
    from cugraphlab.core.errors import InvalidArgumentError
    from studies.exec_update.measure import measure_exec_update

    with pytest.raises(InvalidArgumentError, match="even"):
        measure_exec_update(object(), k=3)


def test_the_table_reads_the_goal_and_the_driver_share():
    from cugraphlab.bench.stats.summary import summarize
    from studies.exec_update.measure import ExecUpdatePaired, PairedUpdateRow
    from studies.exec_update.report import render_exec_update

    def s(v, clock="host_call"):
        return summarize([v * 0.99, v, v * 1.01], unit="us", clock=clock)

    rows = []
    for case, c in (("own graph", 0.15), ("changed parameters", 1.40)):
        rows.append(PairedUpdateRow(case, "C", s(c, "c_monotonic"), None, True))
        for way, extra in (("bindings", 0.6), ("bindings, each call timed", 0.75), ("ctypes, argtypes", 0.5),
                           ("ctypes, bound partial", 0.3)):
            rows.append(PairedUpdateRow(case, way, s(c + extra), s(extra), True))
    r = ExecUpdatePaired(config={"chain": "add -> mul", "kernel_nodes": 4, "k": 50, "rounds": 10}, rows=rows,
                         clocks={"c_monotonic": "C clock"})
    text = render_exec_update(r)
    assert "own graph: C 0.150 us" in text and "ctypes, bound partial 0.450 us (goal <= 0.5 us: met)" in text
    assert "changed parameters: C 1.400 us" in text and "(goal <= 0.5 us: not met)" in text
    assert "+1.250 us per update" in text
    assert "+0.150 us per call against the same calls timed as a block" in text
    assert "1.700 us against 1.900 called from a loop body (-0.200 us per call)" in text


def test_a_bound_call_is_a_partial_that_keeps_its_graph():
    import functools

    from cugraphlab.graphs.update import DirectExecUpdate

    seen = []
    fn = PROTO(lambda e, g, i: seen.append((e, g)) or 0)
    g = _H(BIG + 1)
    call = DirectExecUpdate(_H(BIG), fn=fn).bind(g)
    assert isinstance(call, functools.partial) and call.graph is g
    assert call() == 0 and seen == [(BIG, BIG + 1)]


def test_benchmark_script_imports():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "studies" / "exec_update" / "run.py"
    spec = importlib.util.spec_from_file_location("exec_update_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert callable(mod.main)
