"""``cugraphlab diff`` from the command line on the cases of issue 25 section 4 and issue 24: run records judged
(self, repeat, slowed), other configurations refused in one line (exit 2) unless --allow-config, too few samples
noted at the top with --fail-on exiting 1, an nvbench file paired with a cugraphlab row (--pair), and the bad
inputs (NaN in a file, truncated JSON, a bad --allow-config) each one line, exit 2."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from test_diff_cli import _bad, _run, _write, cli  # noqa: F401  (the same funnel and fixture)

from fake_nvbench import write_nvbench_json
from synthetic_records import noisy, probe_record, run_record


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    return {"a": _write(tmp_path / "a.json", run_record(rng)), "b": _write(tmp_path / "b.json", run_record(rng)),
            "slow": _write(tmp_path / "slow.json", run_record(rng, delay_us=1.0)), "tmp": tmp_path,
            "record": run_record(rng)}


def test_run_records_self_repeat_and_slowed(cli, capsys, runs):
    rc, out, err = _run(cli, capsys, runs["a"], runs["a"], "--fail-on", "any-change")
    assert rc == 0 and "counts: SAME 6 · FASTER 0 · SLOWER 0 · AMBIGUOUS 0" in out and "NOTE" not in out
    rc, out, _ = _run(cli, capsys, runs["a"], runs["b"])
    table = {line.split(":")[0] + ":" + line.split(":")[1].split()[0]: line for line in out.splitlines()
             if line.startswith(("graph: ", "fused: "))}
    assert len(table) == 4 and all(line.rstrip().endswith("SAME") for line in table.values())
    rc, out, _ = _run(cli, capsys, runs["a"], runs["slow"], "--fail-on", "slower")
    assert rc == 1 and "--fail-on slower: 2 row(s): eager: wall, eager: device" in out


def test_other_configurations_are_one_line_and_exit_2_unless_allowed(cli, capsys, runs):
    other = runs["record"]
    other["config"]["size"] = 1024
    path = _write(runs["tmp"] / "small.json", other)
    _bad(cli, capsys, runs["a"], path, words="different configurations (size: 1048576 -> 1024)")
    rc, out, _ = _run(cli, capsys, runs["a"], path, "--allow-config", "size")
    assert rc == 0 and "config differs: size: 1048576 -> 1024" in out
    rc, _, _ = _run(cli, capsys, runs["a"], path, "--allow-config", "all")
    assert rc == 0
    out = _bad(cli, capsys, runs["tmp"] / "missing.json", runs["a"], "--allow-config", "size,,iters",
               words="--allow-config takes configuration keys")
    assert out == ""


def test_too_few_samples_are_noted_at_the_top_and_fail_the_check(cli, capsys, tmp_path):
    rng = np.random.default_rng(1)
    a = _write(tmp_path / "a.json", probe_record({"t": (noisy(rng, 4.0, n=5), "us")}))
    b = _write(tmp_path / "b.json", probe_record({"t": (noisy(rng, 4.0, n=5), "us")}))
    rc, out, _ = _run(cli, capsys, a, b)
    lines = out.splitlines()
    assert rc == 0 and lines[3].startswith("NOTE: too few samples: 1 of 1 rows have fewer than 6 on a side")
    rc, out, _ = _run(cli, capsys, a, b, "--fail-on", "slower")
    assert rc == 1 and "--fail-on slower: nothing could be judged (1 row(s) compared, every one AMBIGUOUS)" in out


def test_an_nvbench_file_against_a_cugraphlab_row(cli, capsys, tmp_path):
    rng = np.random.default_rng(2)
    row = "saxpy [Device=0 Elements=2^20]: cold GPU"
    nv = write_nvbench_json(tmp_path / "nv.json", {"saxpy": {"Device=0 Elements=2^20": (
        2.5e-6 * (1 + 0.01 * rng.standard_normal(100)), 2.4e-6)}})
    ours = _write(tmp_path / "ours.json", probe_record({"saxpy: device": (noisy(rng, 2.5, n=40, rel=0.01), "us",
                                                                          "device")}))
    rc, out, _ = _run(cli, capsys, nv, ours, "--pair", row, "saxpy: device", "--threshold", "3%",
                      "--fail-on", "any-change")
    assert rc == 0 and "records of two tools: nvbench (A) against cugraphlab.test-probe (B)" in out
    assert f"{row} ~ saxpy: device" in out and "SAME" in out and "--pair" in out
    _bad(cli, capsys, nv, ours, words="share no row label: name the rows to compare with --pair")
    _bad(cli, capsys, nv, ours, "--pair", "nope", "saxpy: device", words="--pair: ")
    rc, out, _ = _run(cli, capsys, nv, nv)
    assert rc == 0 and "nvbench-compare" in out


def test_nan_in_a_file_and_truncated_json_are_one_line(cli, capsys, runs):
    tmp = runs["tmp"]
    text = pathlib.Path(runs["a"]).read_text()
    d = json.loads(text)
    d["samples"]["graph: device"]["values"][3] = float("nan")
    nan = tmp / "nan.json"
    nan.write_text(json.dumps(d))  # json writes the NaN token, as a hand edit or another writer might
    _bad(cli, capsys, runs["a"], nan, words="samples row 'graph: device' holds 1 NaN or infinite value(s)")
    cut = tmp / "cut.json"
    cut.write_text(text[:200])
    err_words = "is not JSON ("
    _bad(cli, capsys, runs["a"], cut, words=err_words)
    rc, out, err = _run(cli, capsys, runs["a"], cut)
    assert "at at" not in err
