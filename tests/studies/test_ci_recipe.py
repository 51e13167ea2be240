"""benchmarks/ci_recipe.py without a GPU: its arguments, the commands it would run (--dry-run), and its bookkeeping
with each ``cugraphlab measure`` command replaced by a synthetic record of 4 processes and the exit code the command
would give (``diff_records(...).fails``): pairs, verdicts by the judged rows, the held row, the JSON and the table."""
from __future__ import annotations

import json

import numpy as np
import pytest

import ci_recipe as bench


def _fake_measure(cmd, env, timeout):
    """What one measure command would write and exit with, from synthetic samples: four processes, each in its own
    launch-cost mode (+-4%), which the x ref row divides out; the delay adds 1 µs per call to the host rows, the
    longer kernel 10% to the device and held rows."""
    from cugraphlab.bench.diff import diff_records

    arg = dict(zip(cmd, cmd[1:]))
    out = arg["--json"]
    rng = np.random.default_rng(abs(hash(out)) % 2**32)
    kernel = "spin.cu" in " ".join(cmd)
    longer = "/longer/" in " ".join(cmd)
    delay = float(env.get("CGL_DELAY_US", "0"))
    samples: dict = {}

    def add(label, unit, clock, values):
        e = samples.setdefault(label, {"unit": unit, "clock": clock, "values": [], "groups": []})
        e["values"] += [float(v) for v in values]
        e["groups"] += [p] * len(values)

    for p in range(int(arg["--processes"])):
        mode = 1 + 0.04 * rng.standard_normal()
        ref = 4.3 * mode * (1 + 0.005 * rng.standard_normal(30))
        host = (4.5 * mode + delay) * (1 + 0.005 * rng.standard_normal(30))
        add("eager: host", "us", "host_call", host)
        add("eager: host / reference", "time ratio", "host_call", host / ref)
        add("reference: host", "us", "host_call", ref)
        gpu = 50.0 * (1.1 if longer else 1.0) if kernel else 4.6 * mode
        add("eager: device", "us", "device", gpu * (1 + 0.002 * rng.standard_normal(30)))
        if kernel:
            add("eager: held", "us", "held", 0.99 * gpu * (1 + 0.001 * rng.standard_normal(30)))
    record = {"kind": "cugraphlab.measure", "schema": 1, "config": {"work": "spin" if kernel else "step"},
              "env": {}, "samples": samples}
    with open(out, "w") as f:
        json.dump(record, f)
    if "--compare-to" not in arg:
        return 0, "measured"
    with open(arg["--compare-to"]) as f:
        old = json.load(f)
    d = diff_records(old, record, float(arg["--threshold"]), env={})
    return (1 if d.fails(arg["--fail-on"]) else 0), "compared"


def test_the_pairs_are_judged_counted_and_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench.Runner, "run", staticmethod(_fake_measure))
    assert bench.main([str(tmp_path), "--pairs", "4"]) == 0
    out = capsys.readouterr().out
    d = json.loads((tmp_path / "ci_recipe.json").read_text())
    assert len(d["commands"]) == 2 * 4 + 1 + 4 + 1
    assert [p["b"] for p in d["unchanged"]] == ["u_1.json", "u_2.json", "u_3.json", "u_4.json"]
    assert [p["a"] for p in d["delay_1us"]] == ["u_0.json", "u_1.json", "u_2.json", "u_3.json"]
    assert all(p["flagged_slower"] and p["exit"] == 1 for p in d["delay_1us"])
    assert all(p["judging"]["judged"]["eager: host / reference"] == "SLOWER" for p in d["delay_1us"])
    assert all("eager: host" not in p["judging"]["judged"] for p in d["delay_1us"])  # host rows are not judged
    assert sum(p["false_slower"] for p in d["unchanged"]) <= 1
    # base (A) against longer (B) whichever ran first; the CLI's exit says a change was seen either way
    kernel = d["kernel_10pct"]
    assert [(p["a"][0], p["b"][0]) for p in kernel] == [("k", "l")] * 4
    assert [p["cli_direction"] for p in kernel] == ["longer after base", "base after longer"] * 2
    assert all(p["by_held"] and p["read_by"] == "eager: held" and p["slower"] and p["cli_exit"] == 1
               for p in kernel)
    assert [r["met"] for r in d["summary"]] == ["met"] * 3
    assert "spin kernel ~50 µs made 10% longer, by its held row" in out
    assert out.rstrip().splitlines()[-1].lstrip().startswith("spin kernel")  # the table comes last
    base = (tmp_path / "kernel" / "base" / "spin.cu").read_text()
    longer = (tmp_path / "kernel" / "longer" / "spin.cu").read_text()
    assert "#define SPIN_ITERS 25000" in base and "#define SPIN_ITERS 27500" in longer


def test_a_dry_run_prints_every_command_and_runs_none(tmp_path, monkeypatch, capsys):
    def refuse(*a, **k):
        raise AssertionError("a dry run ran a command")

    monkeypatch.setattr(bench.Runner, "run", staticmethod(refuse))
    assert bench.main([str(tmp_path), "--pairs", "2", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 * 2 + 1 + 2 + 1 and not (tmp_path / "ci_recipe.json").exists()
    assert lines[1].startswith("d_0: CGL_DELAY_US=1 ") and "--compare-to" in lines[1] and "--fail-on slower" in lines[1]
    assert "measure" in lines[0] and "--processes 4" in lines[0] and "--compare-to" not in lines[0]
    assert "longer/spin.cu" in lines[-2] and "--fail-on any-change" in lines[-1]


@pytest.mark.parametrize("argv, message", [(["--processes", "3"], "--processes must be >= 4"),
                                           (["--pairs", "0"], "--pairs must be >= 1"),
                                           (["--threshold", "5"], "--threshold is a fraction"),
                                           (["--time-budget", "0"], "must be > 0")])
def test_bad_arguments_are_refused(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        bench.main([str(tmp_path), *argv])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_the_time_left_stops_new_commands_and_the_table_says_how_many_pairs(tmp_path, monkeypatch, capsys):
    now = [0.0]

    def slow_measure(cmd, env, timeout):  # each command takes 20 s
        now[0] += 20.0
        return _fake_measure(cmd, env, timeout)

    monkeypatch.setattr(bench.Runner, "run", staticmethod(slow_measure))
    monkeypatch.setattr(bench.time, "perf_counter", lambda: now[0])
    assert bench.main([str(tmp_path), "--pairs", "20", "--max-seconds", "600"]) == 1
    d = json.loads((tmp_path / "ci_recipe.json").read_text())
    # the callable commands get 41/62 of the 600 s (~20 commands), the kernel the rest (~10)
    assert 8 <= len(d["unchanged"]) <= 10 and 8 <= len(d["delay_1us"]) <= 10 and 8 <= len(d["kernel_10pct"]) <= 10
    out = capsys.readouterr().out
    assert "NOT met" in out and d["seconds"] <= 600


def test_a_command_that_fails_starts_the_chain_again(tmp_path, monkeypatch, capsys):
    def flaky(cmd, env, timeout):
        if cmd[cmd.index("--json") + 1].endswith(("u_2.json", "k_2.json")):
            return 2, "cugraphlab measure: a capture failed"
        return _fake_measure(cmd, env, timeout)

    monkeypatch.setattr(bench.Runner, "run", staticmethod(flaky))
    assert bench.main([str(tmp_path), "--pairs", "4"]) == 1
    d = json.loads((tmp_path / "ci_recipe.json").read_text())
    assert [p["b"] for p in d["unchanged"]] == ["u_1.json", "u_2.json", "u_4.json"]
    assert d["unchanged"][1]["judging"] is None and "d_2.json" not in [p["b"] for p in d["delay_1us"]]
    assert "u_3.json" not in [p["b"] for p in d["unchanged"]]  # u_3 had no record to compare with
    # a failed command is a pair without a verdict: it counts against the goal
    assert [(p["a"], p["b"]) for p in d["kernel_10pct"]] == [("k_0.json", "l_1.json"), ("k_2.json", "l_1.json"),
                                                             ("k_4.json", "l_3.json")]
    assert [p["slower"] for p in d["kernel_10pct"]] == [True, False, True]
    out = capsys.readouterr().out
    assert "by its held row" in out and "2 SLOWER" in out
    assert "commands that failed (exit 2 or a timeout; see logs/): u_2, kernel_2" in out
