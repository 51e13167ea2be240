"""cugraphlab.measure on the fake driver: the ways of each kind of work, the checks, the errors a user meets, the
record and diff. Figures here are the host's (fake events), so only the logic is tested, never a timing."""
from __future__ import annotations

import json

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


def test_a_launch_is_measured_eager_graph_and_the_native_ways_say_why_not_here(dev):
    import cugraphlab as cgl

    with dev.create_stream() as s:
        r = cgl.measure(fake_kernel(dev, s), **QUICK)
    assert [w.way for w in r.ways] == ["eager", "graph", "native", "floor", "reference", "graph reference"]
    for name in ("eager", "graph"):
        w = r[name]
        assert w.measured and w.host.n == w.wall.n == w.device.n == w.relative.n >= 6
        assert set(w.intervals) == {"host", "wall", "device", "held", "cold", "relative"}
        assert w.held.n == w.cold.n == w.wall.n and w.gpu_note == "" and w.held_calls >= 1
        assert w.relative.unit == "time ratio"
    for name in ("native", "floor"):  # no libcuda here: the reason instead of a figure
        assert not r[name].measured and r[name].note.startswith("not measured:")
    assert r.graph_costs["nodes"] == 1 and len(r.graph_costs["capture_us"]["values"]) == 3
    assert r.break_even["setup_us"] == pytest.approx(r.graph_costs["setup_us"])
    assert r.stop_reason in ("spread", "max_samples", "time_cap")
    assert r.config["kind"] == "launches" and r.config["calls"] == "auto"
    assert sorted(r.samples) == sorted([f"{w}: {c}" for w in ("eager", "graph", "reference", "graph reference")
                                        for c in ("host", "wall", "device")] + ["eager: host / reference",
                                                                                "graph: host / reference"]
                                       + [f"{w}: {c}" for w in ("eager", "graph") for c in ("held", "cold")])
    assert r.samples["eager: host"]["clock"] == "host_call"
    assert r.samples["eager: held"]["clock"] == "held" and r.samples["graph: cold"]["clock"] == "cold"
    ratios = [a / b for a, b in zip(r.samples["eager: host"]["values"], r.samples["reference: host"]["values"])]
    assert r.samples["eager: host / reference"]["values"] == pytest.approx(ratios)  # paired, round by round
    # like for like: the graph way over a graph of one empty kernel, launched the same way, in the same rounds
    graph_ratios = [a / b for a, b in zip(r.samples["graph: host"]["values"],
                                          r.samples["graph reference: host"]["values"])]
    assert r.samples["graph: host / reference"]["values"] == pytest.approx(graph_ratios)
    assert r["reference"].relative is None and r["graph reference"].relative is None


def test_a_callable_gets_the_stream_kind_it_asks_for_and_check_runs_once_per_way(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    seen, checked, prepared = [], [], []

    def work(stream):
        seen.append(stream)
        fn(_Handle(stream))

    r = cgl.measure(work, device=dev, stream="handle", check=lambda: checked.append(1),
                    prepare=lambda: prepared.append(1), **QUICK)
    assert all(isinstance(s, int) for s in seen)
    assert [w.way for w in r.ways] == ["eager", "graph", "reference", "graph reference"]
    assert [w.check for w in r.ways] == ["passed", "passed", None, None] and r.verified is True
    assert len(checked) == 2 and len(prepared) == 3  # prepare: once first, then before each way's check
    buf.close()


class _Handle:
    def __init__(self, handle):
        self.handle = handle


def test_setup_state_reaches_the_work_check_and_prepare(dev):
    import cugraphlab as cgl

    got = {}

    def setup(stream):
        return dev.array(256), 256

    def work(stream, buf, n):
        from cugraphlab.core._calls import cu

        got["work"] = n
        cu("cuMemsetD32Async", buf.handle, 0, n, stream.handle)

    def check(buf, n):
        got["check"] = n
        assert n == 256

    r = cgl.measure(work, setup=setup, check=check, device=dev, ways=("eager",), **QUICK)
    assert got == {"work": 256, "check": 256} and r["eager"].check == "passed"


def test_a_check_that_fails_is_reported_per_way_not_raised(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)

    def check():
        raise AssertionError("3 of 1,024 elements differ")

    r = cgl.measure(fn, device=dev, check=check, **QUICK)
    assert r["eager"].check == "FAILED: 3 of 1,024 elements differ" and r.verified is False
    r = cgl.measure(fn, device=dev, check=lambda: False, ways=("eager",), **QUICK)
    assert r["eager"].check == "FAILED: the check returned False"


def test_a_work_that_raises_is_one_line_naming_the_exception_and_the_line(dev):
    import cugraphlab as cgl
    from cugraphlab.bench.measure import WorkRaised

    def broken(stream):
        raise ValueError("the buffers are not set up")

    with pytest.raises(WorkRaised, match=r"broken\(stream\) raised ValueError: the buffers are not set up "
                                         r"\(at test_measure_work.py:\d+ in broken\)") as e:
        cgl.measure(broken, device=dev, **QUICK)
    assert isinstance(e.value.__cause__, ValueError) and "\n" not in str(e.value)


def test_a_callable_that_ignores_its_stream_is_refused(dev):
    import cugraphlab as cgl
    from cugraphlab.bench.measure import StreamIgnoredError

    fn, buf = memset_work(dev)
    with dev.create_stream() as other:
        with pytest.raises(StreamIgnoredError, match="enqueued nothing on the stream it was given"):
            cgl.measure(lambda stream: fn(other), device=dev, **QUICK)
        with pytest.raises(StreamIgnoredError):  # also when the graph way is not asked for
            cgl.measure(lambda stream: fn(other), device=dev, ways=("eager",), **QUICK)


def test_a_capture_that_fails_gives_the_doctors_diagnosis_and_eager_is_still_measured(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)

    def syncs(stream):
        fn(stream)
        stream.synchronize()  # refused while capturing: the doctor names this line

    r = cgl.measure(syncs, device=dev, **QUICK)
    assert r["eager"].measured and not r["graph"].measured and r.capture_failed
    first = r["graph"].diagnosis["findings"][0]
    assert first["kind"] == "sync" and first["call"] == "cuStreamSynchronize"
    assert "test_measure_work.py" in first["where"] and "Fix:" in r["graph"].note
    from cugraphlab.report.measure_work import render_measure

    text = render_measure(r)
    assert "the capture failed" in text and "fix: Move the wait out of the capture" in text


def test_a_graph_and_an_exec_are_replayed_and_a_graph_instantiated_here(dev):
    import cugraphlab as cgl

    with dev.create_stream() as s:
        launch = fake_kernel(dev, s)
        with cgl.capture(s) as cap:
            launch()
        r = cgl.measure(cap.graph, ways=("graph",), **QUICK)
        assert r["graph"].measured and "instantiate_us" in r.graph_costs
        with cap.graph.instantiate() as exe:
            r = cgl.measure(exe, ways=("graph",), **QUICK)
            assert r["graph"].measured and "instantiate_us" not in r.graph_costs
        cap.graph.close()


def test_l2_cold_is_replaced_by_the_cold_clock_and_says_so(dev):
    import cugraphlab as cgl
    from cugraphlab.core.errors import InvalidArgumentError

    fn, buf = memset_work(dev)
    with pytest.raises(InvalidArgumentError, match=r"l2='cold' is replaced: every way now has a cold row"):
        cgl.measure(fn, device=dev, l2="cold", ways=("eager",), **QUICK)
    r = cgl.measure(fn, device=dev, ways=("eager",), **QUICK)
    assert r["eager"].cold is not None and r.calls_per_sample > 1 and r.config["l2"] == "warm"


def test_bad_arguments_are_one_line_each(dev):
    import cugraphlab as cgl
    from cugraphlab.core.errors import InvalidArgumentError

    fn, buf = memset_work(dev)
    for kwargs, match in ((dict(ways=("eager", "warp")), "unknown way 'warp'"),
                          (dict(ways=("native",)), "cannot be run as 'native'"),
                          (dict(l2="tepid"), "l2 must be 'warm'"),
                          (dict(stream="jax"), "stream must be one of")):
        with pytest.raises(InvalidArgumentError, match=match):
            cgl.measure(fn, device=dev, **{**QUICK, **kwargs})
    with pytest.raises(InvalidArgumentError, match="got int"):
        cgl.measure(42, device=dev, **QUICK)
    with pytest.raises(InvalidArgumentError, match="top-level function"):
        cgl.measure(lambda s: None, processes=2, **QUICK)


def test_the_record_round_trips_and_diff_finds_it_the_same_as_itself(dev):
    import cugraphlab as cgl

    with dev.create_stream() as s:
        r = cgl.measure(fake_kernel(dev, s), **QUICK)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["kind"] == "cugraphlab.measure" and "break_even" in d and d["verified"] is None
    back = cgl.load_record(d)
    assert back["eager"].wall.median == r["eager"].wall.median
    diff = cgl.diff_records(d, d)  # the fake's host-clock samples are noisy: judged, never SLOWER or FASTER
    assert len(diff.rows) == 18 and diff.counts["SLOWER"] == diff.counts["FASTER"] == 0


def test_the_same_record_made_one_and_a_half_times_slower_reads_slower_on_every_row(dev):
    """The companion of the self-diff above, which cannot fail: the same record's rows, each given quiet samples
    about its own median (the fake's host clock on a shared machine spreads a row by 10x, which no verdict
    survives), against those samples x1.5: every row, times and time ratios alike, SLOWER, never SAME."""
    import copy

    import cugraphlab as cgl

    with dev.create_stream() as s:
        r = cgl.measure(fake_kernel(dev, s), **QUICK)
    quiet = json.loads(json.dumps(r.to_dict()))
    for entry in quiet["samples"].values():
        values = entry["values"]
        median = sorted(values)[len(values) // 2]
        entry["values"] = [median * (1 + 0.002 * (i % 5)) for i in range(len(values))]
    slower = copy.deepcopy(quiet)
    for entry in slower["samples"].values():
        entry["values"] = [v * 1.5 for v in entry["values"]]
    same, diff = cgl.diff_records(quiet, quiet), cgl.diff_records(quiet, slower)
    assert [row.label for row in diff.rows] == [row.label for row in same.rows] and len(diff.rows) >= 14
    assert {row.verdict for row in same.rows} == {"SAME"}
    assert [(row.label, row.verdict) for row in diff.rows if row.verdict != "SLOWER"] == []
    assert all(row.ratio == pytest.approx(1.5) for row in diff.rows)


def test_processes_pool_samples_with_the_process_as_the_group(dev):
    from cugraphlab.bench.measure.result import build_result

    def part(offset):
        return {"work": "w", "ways": [{"name": "eager", "what": "x"}], "calls": 10, "stop_reason": "spread",
                "values": {"eager": {c: [1.0 + offset + i / 100 for i in range(6)] for c in ("host", "wall",
                                                                                            "device")}}}

    r = build_result([part(0), part(1), part(2), part(3)], config={"work": "w"}, env={})
    row = r.samples["eager: wall"]
    assert row["groups"] == [g for g in range(4) for _ in range(6)]
    assert r.processes == 4 and r["eager"].intervals["wall"]["groups"] == 4


def test_the_sm_clock_probe_runs_after_each_round(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    r = cgl.measure(fn, device=dev, ways=("eager",), **{**QUICK, "sm_clock": True})
    assert r.sm_clock["note"] == "" and r.sm_clock["rated_mhz"] == pytest.approx(0.001)  # the fake's 1 kHz
    assert r.sm_clock["clock"].startswith("clock64")


def test_a_launch_prepared_without_a_stream_is_bound_to_the_one_given_or_made(dev):
    import cugraphlab as cgl
    from cugraphlab.core.errors import InvalidArgumentError

    with dev.create_stream() as s:
        bound = fake_kernel(dev, s)
        unbound = bound.kernel.prepare(("ptr", "u64"), (bound.keep[1], 1024), (4, 256))
        r = cgl.measure(unbound, stream=s, ways=("eager", "graph"), **QUICK)
        assert r["graph"].measured and r.config["kind"] == "launches"
        r = cgl.measure([unbound, unbound], ways=("eager",), **QUICK)  # a stream made for it
        assert r["eager"].measured and "2 launches" in r.work
        with dev.create_stream() as other, pytest.raises(InvalidArgumentError, match="leave stream= out"):
            cgl.measure(bound, stream=other, **QUICK)


def test_a_work_that_raises_later_in_the_timed_loops_is_one_line_too(dev):
    import cugraphlab as cgl
    from cugraphlab.bench.measure import WorkRaised

    fn, buf = memset_work(dev)
    calls = []

    def flaky(stream):
        calls.append(1)
        if len(calls) > 40:
            raise RuntimeError("out of patience")
        fn(stream)

    with pytest.raises(WorkRaised, match=r"the work, in the timed loops, raised RuntimeError: out of patience"):
        cgl.measure(flaky, device=dev, ways=("eager",), **QUICK)


def test_sampling_settings_are_checked(dev):
    import cugraphlab as cgl
    from cugraphlab.core.errors import InvalidArgumentError

    fn, buf = memset_work(dev)
    r = cgl.measure(fn, device=dev, ways=("eager",), **{**QUICK, "min_samples": 10, "max_samples": 7})
    assert r["eager"].wall.n == 7  # min_samples cannot exceed max_samples
    for bad in (dict(max_samples=0), dict(calls=0), dict(time_budget_s=0), dict(target_spread=-1)):
        with pytest.raises(InvalidArgumentError):
            cgl.measure(fn, device=dev, ways=("eager",), **{**QUICK, **bad})


def test_many_processes_are_thinned_within_each_so_every_value_keeps_its_process():
    from cugraphlab.bench.measure.result import build_result
    from cugraphlab.bench.records.record import MAX_SAMPLES

    parts = [{"work": "w", "ways": [{"name": "eager", "what": ""}], "calls": 1,
              "values": {"eager": {c: [float(i)] * 500 for c in ("host", "wall", "device")}}} for i in range(8)]
    row = build_result(parts, config={}, env={}).samples["eager: wall"]
    assert len(row["values"]) == len(row["groups"]) <= MAX_SAMPLES
    assert sorted(set(row["groups"])) == list(range(8)) and row["values"] == [float(g) for g in row["groups"]]


def test_a_prepare_that_raises_stops_with_work_raised_like_setup(dev):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)

    def prepare():
        raise ValueError("no fresh inputs")

    for check in (None, lambda: True):  # with or without a check, it runs first
        with pytest.raises(cgl.WorkRaised, match=r"prepare raised ValueError: no fresh inputs \(at "):
            cgl.measure(fn, device=dev, ways=("eager",), prepare=prepare, check=check, **QUICK)


def test_every_keyword_is_checked_before_anything_runs(dev, fake):
    import cugraphlab as cgl
    from cugraphlab.core.errors import InvalidArgumentError

    calls = []

    def work(stream):
        calls.append(1)

    for kwargs, match in ((dict(capture_mode="weird"), "capture_mode must be one of"),
                          (dict(sm_clock="yes"), "sm_clock must be True or False"),
                          (dict(time_budget_s=float("inf")), "time_budget_s must be a finite number"),
                          (dict(processes=0), "processes must be a whole number"),
                          (dict(timeout_s=-1), "timeout_s must be"),
                          (dict(prepare=3), "prepare must be a function")):
        with pytest.raises(InvalidArgumentError, match=match):
            cgl.measure(work, device=dev, ways=("eager",), **{**QUICK, **kwargs})  # no graph way asked
    assert calls == []


def test_the_options_are_one_frozen_object_with_its_defaults_in_one_place():
    import dataclasses

    from cugraphlab.bench.measure.options import MeasureOptions
    from cugraphlab.core.errors import InvalidArgumentError

    o = MeasureOptions.coerce({"ways": ["eager"], "calls": 5})
    assert o.ways == ("eager",) and o.calls == 5 and o.capture_mode == "thread_local" and o.gpu_clocks is True
    assert MeasureOptions.coerce(o) is o and MeasureOptions.coerce(None) == MeasureOptions()
    assert MeasureOptions.coerce(o.to_dict()) == o  # what a worker process gets back
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.calls = 6  # type: ignore[misc]
    with pytest.raises(InvalidArgumentError, match="unknown measure option 'budget'"):
        MeasureOptions.coerce({"budget": 3})


def test_the_errors_of_measure_are_reachable_from_the_top_level():
    import cugraphlab as cgl
    from cugraphlab.bench.measure.way import StreamIgnoredError, WorkRaised

    assert cgl.WorkRaised is WorkRaised and cgl.StreamIgnoredError is StreamIgnoredError
    assert issubclass(cgl.WorkRaised, cgl.InvalidArgumentError) and "WorkRaised" in cgl.__all__


def test_a_result_saves_itself_as_the_record_diff_reads(dev, tmp_path):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    r = cgl.measure(fn, device=dev, ways=("eager",), **QUICK)
    path = r.save(tmp_path / "r.json")
    d = json.loads((tmp_path / "r.json").read_text())
    assert path.endswith("r.json") and d["kind"] == "cugraphlab.measure"
    assert cgl.load_record(d)["eager"].held.median == r["eager"].held.median


_FAKE_CUPY = """
class CUDARuntimeError(RuntimeError):
    pass


class ndarray:
    def __init__(self, stream):
        self.stream = stream

    def get(self):
        from cugraphlab.core._calls import cu

        if int(cu("cuStreamIsCapturing", self.stream.handle)) != 0:
            raise CUDARuntimeError("cudaErrorStreamCaptureUnsupported: operation not permitted when stream is "
                                   "capturing")
        return 0


def asnumpy(a):
    return a.get()
"""


def _fake_cupy():
    """A stand-in for CuPy's array and asnumpy whose frames are a library's (an installed package's path), so
    that the user's line is the deepest of the user's frames, as with the real CuPy."""
    import types

    mod = types.ModuleType("cupy")
    mod.__file__ = "/opt/python/lib/site-packages/cupy/_core/_fake.py"
    exec(compile(_FAKE_CUPY, mod.__file__, "exec"), mod.__dict__)
    mod.CUDARuntimeError.__module__ = "cupy_backends.cuda.api.runtime"
    return mod


@pytest.mark.parametrize("line", ["get", "asnumpy"])
def test_a_cupy_host_copy_inside_the_work_gets_the_fix_in_cupys_terms(dev, line):
    import cugraphlab as cgl

    fn, buf = memset_work(dev)
    cupy = _fake_cupy()

    def with_get(stream):
        fn(stream)
        arr = cupy.ndarray(stream)
        host = arr.get()  # the line the diagnosis reads
        return host

    def with_asnumpy(stream):
        fn(stream)
        host = cupy.asnumpy(cupy.ndarray(stream))
        return host

    r = cgl.measure(with_get if line == "get" else with_asnumpy, device=dev, ways=("eager", "graph"), **QUICK)
    g = r["graph"]
    assert not g.measured and "Fix: " in g.note
    want = ("ndarray.get() copies to the host and waits" if line == "get"
            else "cupy.asnumpy waits for the copy: call it after graph.launch(stream)")
    assert want in g.note, g.note
    assert r["eager"].measured
