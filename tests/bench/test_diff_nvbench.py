"""``cugraphlab diff`` reads nvbench / cuda-bench JSON (file version 1, raw cold GPU samples from ``--jsonbin``):
two nvbench files judged row by row beside nvbench-compare's own verdict, an nvbench row paired with a cugraphlab
row of the same kernel, and every way such a file can fall short said in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cugraphlab.bench.diff import diff_records, read_record_file
from cugraphlab.bench.records.nvbench import is_nvbench, nvbench_compare_status, nvbench_record
from cugraphlab.bench.records.record import RecordError
from fake_nvbench import write_nvbench_json
from synthetic_records import probe_record

ENV = {"host": "test"}
ROW = "saxpy [Device=0 Elements=2^20]: cold GPU"


def _cold(rng, us, n=200, rel=0.01):
    return us * 1e-6 * (1 + rel * rng.standard_normal(n))


def _file(tmp_path, name, rng, saxpy_us=2.5, relu_us=1.8, **kw):
    return write_nvbench_json(tmp_path / name, {
        "saxpy": {"Device=0 Elements=2^20": (_cold(rng, saxpy_us), saxpy_us * 0.97e-6)},
        "relu": {"Device=0 Elements=2^10": (_cold(rng, relu_us), None)}}, **kw)


def test_an_nvbench_file_becomes_a_record_of_raw_samples(tmp_path):
    rng = np.random.default_rng(0)
    d = read_record_file(_file(tmp_path, "a.json", rng))
    assert d["kind"] == "nvbench" and d["schema"] == 1 and d["config"] == {}
    assert list(d["samples"]) == [ROW, "relu [Device=0 Elements=2^10]: cold GPU"]
    row = d["samples"][ROW]
    assert row["unit"] == "us" and row["clock"] == "nvbench_cold_gpu" and len(row["values"]) == 200
    assert np.median(row["values"]) == pytest.approx(2.5, rel=0.01)  # float32 seconds -> µs
    assert d["nvbench"][ROW]["batch_gpu_mean_us"] == pytest.approx(2.425)
    assert d["env"]["gpu"]["name"] == "NVIDIA H200" and d["env"]["gpu"]["compute_capability"] == "9.0"
    assert d["env"]["packages"]["nvbench"] == "0.3.0"


def test_two_nvbench_files_are_judged_beside_nvbench_compare(tmp_path):
    from cugraphlab.report.diff import render_diff

    rng = np.random.default_rng(1)
    a = read_record_file(_file(tmp_path, "a.json", rng))
    b = read_record_file(_file(tmp_path, "b.json", rng, saxpy_us=2.5 * 1.3))
    r = diff_records(a, b, a_name="a.json", b_name="b.json", env=ENV)
    by = {x.label: x for x in r.rows}
    assert by[ROW].verdict == "SLOWER" and by[ROW].nvbench.startswith("SLOW (+30")
    relu = by["relu [Device=0 Elements=2^10]: cold GPU"]
    assert relu.verdict == "SAME" and relu.nvbench.startswith(("SAME", "SLOW", "FAST"))
    text = render_diff(r)
    assert "nvbench-compare" in text and "of two nvbench records" in text
    assert next(e for e in r.environment if e.name == "nvbench").a == "0.3.0"


def test_the_sample_files_are_found_when_the_folder_moved(tmp_path):
    rng = np.random.default_rng(2)
    path = _file(tmp_path, "a.json", rng, recorded_as=lambda n: f"runs/h200/a.json-bin/{n}.bin")
    d = read_record_file(path)
    assert len(d["samples"][ROW]["values"]) == 200


def test_a_file_without_samples_says_how_to_get_them(tmp_path):
    rng = np.random.default_rng(3)
    a = read_record_file(_file(tmp_path, "a.json", rng, bins=False))
    assert a["samples"][ROW]["values"] == [] and "--jsonbin" in a["samples"][ROW]["note"]
    r = diff_records(a, a, env=ENV)
    assert r.rows[0].verdict == "AMBIGUOUS" and "--jsonbin" in r.rows[0].reason
    assert r.rows[0].nvbench.startswith("SAME")  # nvbench-compare judges its summaries
    assert r.fails("slower") and "nothing judged" in r.notes[-1]
    gone = _file(tmp_path, "gone.json", rng)
    for f in (tmp_path / "gone.json-bin").iterdir():
        f.unlink()
    d = read_record_file(gone)
    assert "is not there" in d["samples"][ROW]["note"]


def test_a_kernel_timed_by_nvbench_and_by_cugraphlab_is_compared_as_a_pair(tmp_path):
    rng = np.random.default_rng(4)
    nv = read_record_file(_file(tmp_path, "nv.json", rng))
    ours = probe_record({"saxpy 2^20: device": (2.5 * (1 + 0.01 * rng.standard_normal(50)), "us", "device")})
    with pytest.raises(RecordError, match="share no row label: name the rows to compare with --pair"):
        diff_records(nv, ours, env=ENV)
    r = diff_records(nv, ours, env=ENV, pairs=[(ROW, "saxpy 2^20: device")], threshold=0.03)
    row = r.rows[0]
    assert row.label == f"{ROW} ~ saxpy 2^20: device" and row.label_b == "saxpy 2^20: device"
    assert row.verdict == "SAME" and "paired rows of two clocks" in row.reason
    assert r.compared_kind == "nvbench" and r.compared_kind_b == "cugraphlab.test-probe"
    assert ROW not in r.only_a and "relu [Device=0 Elements=2^10]: cold GPU" in r.only_a
    with pytest.raises(RecordError, match=r"^pair: B has no row 'nope'"):
        diff_records(nv, ours, env=ENV, pairs=[(ROW, "nope")])


def test_nvbench_json_read_without_its_path_and_bad_versions(tmp_path):
    rng = np.random.default_rng(5)
    root = json.loads(_file(tmp_path, "a.json", rng).read_text())
    assert is_nvbench(root) and not is_nvbench({"kind": "cugraphlab.run", "benchmarks": [], "devices": []})
    assert diff_records(root, root, env=ENV).rows[0].verdict == "SAME"  # absolute sample paths: found
    root["meta"]["version"]["json"] = {"major": 2, "string": "2.0.0"}
    with pytest.raises(RecordError, match="nvbench JSON file version 2.0.0; this cugraphlab reads 1.x"):
        nvbench_record(root, "x.json")
    with pytest.raises(RecordError, match="not an nvbench JSON file"):
        nvbench_record({"benchmarks": []}, "x.json")


def test_nvbench_compare_status_follows_its_rules():
    ref = {"cold_gpu_mean_us": 10.0, "cold_gpu_noise": 0.02}
    assert nvbench_compare_status(ref, {"cold_gpu_mean_us": 10.1, "cold_gpu_noise": 0.01}).startswith("SAME")
    assert nvbench_compare_status(ref, {"cold_gpu_mean_us": 10.5, "cold_gpu_noise": 0.01}).startswith("SLOW")
    assert nvbench_compare_status(ref, {"cold_gpu_mean_us": 9.0, "cold_gpu_noise": 0.01}).startswith("FAST")
    assert nvbench_compare_status({"cold_gpu_mean_us": 10.0, "cold_gpu_noise": None},
                                  {"cold_gpu_mean_us": 9.0, "cold_gpu_noise": None}) == "????"
    assert nvbench_compare_status(None, ref) is None
