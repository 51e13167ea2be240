"""The pytest plugin (cgl_measure, --cgl-save / --cgl-compare / --cgl-fail-on, cgl_budget) run by pytester on the
fake driver, in the test's process and in worker processes of the session (the process as the unit)."""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# pytester runs the inner sessions in this process and afterwards drops every module they imported first: a module
# of cugraphlab (or of multiprocessing) imported there for the first time would come back as a second copy for
# the tests that run after these, beside the first copy that other modules hold. So everything the inner sessions
# use is imported here, before them.
for _name in ("cugraphlab.cli", "cugraphlab.bench.measure.run", "cugraphlab.bench.measure.pool",
              "cugraphlab.bench.measure.sampler", "cugraphlab.bench.measure.cu_kernel", "cugraphlab.bench.diff",
              "cugraphlab.bench.probes.sm_clock", "cugraphlab.bench.native.loops", "cugraphlab.core.native_launch",
              "cugraphlab.testing.store", "cugraphlab.report.measure", "cugraphlab.core.files",
              "cugraphlab.experiment.runners", "cugraphlab.graphs.doctor", "cugraphlab.bench.records.environment",
              "multiprocessing.connection", "multiprocessing.popen_spawn_posix", "multiprocessing.spawn",
              "multiprocessing.synchronize", "multiprocessing.queues", "virtual_clock"):
    importlib.import_module(_name)

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

CONFTEST = f'''
import sys
sys.path.insert(0, {str(HELPERS)!r})
import pytest
from fake_measure import install_measure_driver

@pytest.fixture(autouse=True)
def _fake(monkeypatch):
    install_measure_driver(monkeypatch)

def pytest_configure(config):
    from cugraphlab.testing import plugin
    from pool_targets import fake_measure_spec
    plugin._State.target = fake_measure_spec
    plugin._State.device = None

def pytest_unconfigure(config):
    from cugraphlab.testing import plugin
    plugin._State.target, plugin._State.device = None, 0
'''

TESTS = '''
import pytest
from cugraphlab.core._calls import cu

N = 256

def make(stream):
    return (stream.device.array(N),)

def step(stream, buf):
    cu("cuMemsetD32Async", buf.handle, 0, N, stream.handle)

def verify(buf):
    assert buf.n == N

def test_step(cgl_measure):
    r = cgl_measure(step, setup=make, check=verify, ways=("eager", "graph"))
    assert r["eager"].check == "passed" and r["graph"].measured

@pytest.mark.cgl_budget(us=1e-9)
def test_over_budget(cgl_measure):
    cgl_measure(step, setup=make, ways=("eager",))

@pytest.mark.cgl_budget(seconds=3, us=1e6, clock="wall")
def test_within_budget(cgl_measure):
    cgl_measure(step, setup=make, ways=("eager",))
'''

FLAGS = ("-p", "no:cacheprovider", "--cgl-budget", "2", "--cgl-max-samples", "8")


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=TESTS)
    return pytester


def _records(folder: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def test_the_fixture_measures_in_the_test_and_budgets_fail_a_test_over_them(suite):
    r = suite.runpytest("--cgl-processes", "1", *FLAGS)
    r.assert_outcomes(passed=2, failed=1)
    r.stdout.fnmatch_lines(["*cgl_budget: eager host * us per call exceeds the budget of 1e-09 us*",
                            "*= cugraphlab measure =*", "*held: how long the work runs on the GPU*",
                            "*3 measurement(s), 1 process per measurement*",
                            "*test_suite.py::test_step: host us/call eager *, graph *; held (GPU) us/call eager *"])


def test_save_then_compare_fails_only_the_test_that_got_slower(suite, tmp_path):
    saved = tmp_path / "saved"
    suite.runpytest("--cgl-processes", "1", "--cgl-save", str(saved), "-k", "test_step", *FLAGS).assert_outcomes(
        passed=1)
    (name, record), = _records(saved).items()
    assert name == "test_suite.py__test_step.json" and record["kind"] == "cugraphlab.measure"
    for entry in record["samples"].values():  # the saved run made 10x faster: this run reads SLOWER
        entry["values"] = [v / 10 for v in entry["values"]]
    (saved / name).write_text(json.dumps(record))
    r = suite.runpytest("--cgl-processes", "1", "--cgl-compare", str(saved), "--cgl-fail-on", "slower",
                        "-k", "test_step", *FLAGS)
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*cgl_measure: against *saved: *: SLOWER x*",
                            "*test_step: host us/call * | *SLOWER*"])
    for entry in record["samples"].values():  # now 10x slower than this run: FASTER, which --fail-on slower allows
        entry["values"] = [v * 100 for v in entry["values"]]
    (saved / name).write_text(json.dumps(record))
    r = suite.runpytest("--cgl-processes", "1", "--cgl-compare", str(saved), "--cgl-fail-on", "slower",
                        "-k", "test_step", *FLAGS)
    r.assert_outcomes(passed=1)
    r.stdout.fnmatch_lines(["*test_step: host us/call * | *FASTER*"])


def test_a_test_without_a_saved_record_is_new(suite, tmp_path):
    (tmp_path / "empty").mkdir()
    r = suite.runpytest("--cgl-processes", "1", "--cgl-compare", str(tmp_path / "empty"), "-k", "test_step",
                        *FLAGS)
    r.assert_outcomes(passed=1)
    r.stdout.fnmatch_lines(["*compared with *empty (threshold 10%)*", "*test_step: * | new (no older record)*"])


def test_bad_options_are_usage_errors(suite):
    r = suite.runpytest("--cgl-fail-on", "slower", *FLAGS)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines(["*--cgl-fail-on needs --cgl-compare DIR*"])
    r = suite.runpytest("--cgl-threshold", "5", *FLAGS)
    r.stderr.fnmatch_lines(["*--cgl-threshold: threshold 5 is ambiguous*"])
    for argv, line in ((["--cgl-compare", "no_such_folder"], "*--cgl-compare no_such_folder: does not exist*"),
                       (["--cgl-budget", "inf"], "*--cgl-budget must be a finite number of seconds > 0, got inf*"),
                       (["--cgl-max-samples", "0"], "*--cgl-max-samples must be >= 1, got 0*")):
        r = suite.runpytest(*FLAGS, *argv)  # the later value of a repeated option wins
        assert r.ret == pytest.ExitCode.USAGE_ERROR
        r.stderr.fnmatch_lines([line])


def test_the_help_and_the_docs_name_saved_records_the_same_way(suite):
    from pathlib import Path

    r = suite.runpytest("--help")
    text = " ".join(r.stdout.str().split())
    assert "DIR/<test file>__<test>.json" in text
    docs = (Path(__file__).resolve().parents[2] / "docs" / "measure.md").read_text()
    assert "`DIR/<test file>__<test>.json`" in docs


def test_processes_measure_in_workers_of_the_session_with_the_process_as_the_unit(suite, tmp_path):
    """The workers' start-up is not charged to --cgl-budget (the pool waits for each to be up), and the budget is
    roomy: on a busy two-core machine a worker's request alone can take seconds; max-samples keeps it short."""
    saved = tmp_path / "saved"
    r = suite.runpytest("--cgl-processes", "2", "--cgl-save", str(saved), "-k", "test_step", *FLAGS,
                        "--cgl-budget", "120")
    r.assert_outcomes(passed=1)
    r.stdout.fnmatch_lines(["*1 measurement(s), 2 processes per measurement; saved to *"])
    record = _records(saved)["test_suite.py__test_step.json"]
    assert record["processes"] == 2 and record["config"]["processes"] == 2
    groups = record["samples"]["eager: wall"]["groups"]
    assert set(groups) == {0, 1} and len(groups) == len(record["samples"]["eager: wall"]["values"])
    assert record["ways"][0]["check"] == "passed"


def test_the_plugin_is_registered_by_its_entry_point():
    from importlib.metadata import entry_points

    eps = [ep for ep in entry_points(group="pytest11") if ep.name == "cugraphlab"]
    assert [ep.value for ep in eps] == ["cugraphlab.testing.plugin"]


def test_the_repeatable_rows_decide_and_a_gpu_paced_way_adds_its_device_row():
    from cugraphlab.testing.store import compare

    def record(graph_device):
        def row(unit, clock, median):
            return {"unit": unit, "clock": clock, "values": [median * (1 + 0.001 * i) for i in range(12)]}

        samples = {"eager: host": row("us", "host_call", 5.0), "eager: device": row("us", "device", 5.1),
                   "eager: host / reference": row("time ratio", "host_call", 1.1),
                   "graph: host": row("us", "host_call", 2.6), "graph: device": row("us", "device", graph_device),
                   "reference: host": row("us", "host_call", 4.5)}
        return {"kind": "cugraphlab.measure", "schema": 1, "config": {}, "env": {}, "samples": samples}

    c = compare(record(20.0), record(20.0), "t")
    assert set(c.judged) == {"eager: host / reference", "graph: device"}
    assert set(c.verdicts) == set(record(20.0)["samples"])
    assert set(compare(record(3.0), record(3.0), "t").judged) == {"eager: host / reference"}
    assert set(compare(record(3.0), record(3.0), "t", judge="all").judged) == set(c.verdicts)


VIRTUAL_CONFTEST = CONFTEST.replace("""def _fake(monkeypatch):
    install_measure_driver(monkeypatch)""", """def _fake(monkeypatch):
    import os
    from virtual_clock import install_virtual_clock
    fake = install_measure_driver(monkeypatch)
    install_virtual_clock(monkeypatch, fake, int(os.environ["CGL_TEST_CLOCK_SEED"]))""")


def test_an_unchanged_rerun_passes_through_the_plugin(pytester, tmp_path, monkeypatch):
    """Save, then compare the same fake-timed work (a virtual host clock charged per driver call, so that this
    machine's load does not time it; another seed for the rerun) with --cgl-fail-on slower: the judged rows read
    SAME, the test passes, pytest exits 0."""
    assert VIRTUAL_CONFTEST != CONFTEST
    pytester.makeconftest(VIRTUAL_CONFTEST)
    pytester.makepyfile(test_suite=TESTS)
    saved = tmp_path / "saved"
    monkeypatch.setenv("CGL_TEST_CLOCK_SEED", "1")
    first = pytester.runpytest("--cgl-processes", "1", "--cgl-save", str(saved), "-k", "test_step", *FLAGS)
    first.assert_outcomes(passed=1)
    monkeypatch.setenv("CGL_TEST_CLOCK_SEED", "2")
    again = pytester.runpytest("--cgl-processes", "1", "--cgl-compare", str(saved), "--cgl-fail-on", "slower",
                               "-k", "test_step", *FLAGS)
    again.assert_outcomes(passed=1)
    assert again.ret == pytest.ExitCode.OK
    line = next(x for x in again.outlines if x.startswith("test_suite.py::test_step: host us/call"))
    judged = line.split(" | ", 1)[1]
    assert re.match(r"SAME \d+ \((\d+) rows judged", judged) and not re.search("SLOWER|FASTER|AMBIGUOUS", judged), line
    record = _records(saved)["test_suite.py__test_step.json"]
    eager = next(w for w in record["ways"] if w["way"] == "eager")  # the virtual clock timed it: a memset, 5.2 µs
    assert eager["host"]["median"] == pytest.approx(5.2, rel=0.05), eager["host"]
