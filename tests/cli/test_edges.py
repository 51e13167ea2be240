"""The edges a new user still hit (issue 30 §4), each tried without a GPU: what must render renders, what must be
refused is refused in one line, and what goes to stdout is what a pipe expects.

One-line refusals (argv -> exit 2 and its line) are rows of tests/cli/test_bad_input_table.py, every committed
record shown is tests/cli/test_show.py; here, what a row cannot say: the record alone on stdout under ``--json
/dev/stdout``, a closed pipe, diff's figures in bounded width, the folder a write created, the benchmark scripts
without a GPU, ``doctor -m`` finding a module of the current folder.
"""
from __future__ import annotations

import io
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cugraphlab import cli
from cugraphlab.cli import args as cli_args
from skip_summary import cut_at_word  # tests/helpers: pyproject's pytest pythonpath
from synthetic_records import noisy, probe_record

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


# ------------------------------------------------------------------------------------------------------- show

def test_a_list_and_an_older_shape_are_shown_plainly_saying_why(tmp_path, capsys):
    followup = RESULTS / "2026-12-01_H200_round3" / "2026-12-01_H200_launch_modes_followup.json"
    assert cli.main(["show", str(followup)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith("a JSON list of 5 item(s), not one record; its items shown plainly")
    assert cli.main(["show", "--plain", str(followup)]) == 0
    assert "a JSON list of 5 item(s)" in capsys.readouterr().out
    old_compare = RESULTS / "2026-11-29_H200" / "2026-11-29_H200_compare.json"
    assert cli.main(["show", str(old_compare)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "cannot be rebuilt: the field(s) 'stack', 'way', and 'round' are missing" in head
    assert "__init__" not in head and "StackRow" not in head
    old_schema = RESULTS / "2026-12-01_H200_round3" / "2026-12-01_H200_scaling.json"
    assert cli.main(["show", str(old_schema)]) == 0
    assert "has schema 1 of cugraphlab.scaling; this cugraphlab reads schema 2; its fields, shown plainly" in \
        capsys.readouterr().out.splitlines()[0]


def test_a_compare_record_whose_rows_is_text_is_shown_plainly(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"kind": "cugraphlab.compare", "schema": 1, "rows": "abc"}))
    assert cli.main(["show", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "rows: abc" in out
    head = out.splitlines()[0]
    assert "another shape than this version reads" in head and "object has no attribute" not in head


def test_record_messages_name_no_python_internals(tmp_path, capsys):
    from cugraphlab.bench.records.kinds import shape_words
    from cugraphlab.bench.records.record import schema_words

    assert schema_words("1") == 'a schema written as "1" (not a whole number)' and schema_words(2) == "schema 2"
    said = shape_words(TypeError("RunResult.__init__() missing 1 required positional argument: 'modes'"))
    assert said == "the field(s) 'modes' are missing (written by another version?)"
    assert "string indices" not in shape_words(TypeError("string indices must be integers, not 'str'"))
    (tmp_path / "s.json").write_text('{"kind": "cugraphlab.run", "schema": "1"}')
    assert cli.main(["show", str(tmp_path / "s.json")]) == 0
    assert "schema '1'" not in capsys.readouterr().out


# ------------------------------------------------------------------------------- --json /dev/stdout, pipes

def _diff_inputs(tmp_path: Path, b_x=None) -> tuple[str, str]:
    rng = np.random.default_rng(7)
    a = probe_record({"x": (noisy(rng, 10.24), "us"), "y": (noisy(rng, 12.0), "us"), "z": ([], "us")})
    b = probe_record({"x": (list(noisy(rng, 10.24)) if b_x is None else b_x, "us"), "y": (noisy(rng, 12.0), "us"),
                      "z": (noisy(rng, 3.0), "us")})
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    return str(tmp_path / "a.json"), str(tmp_path / "b.json")


def _cli(*argv, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "cugraphlab", *argv], capture_output=True, text=True, env=env,
                          timeout=120, **kw)


def test_json_to_dev_stdout_puts_the_record_alone_on_stdout(tmp_path):
    """`cugraphlab diff A B --json /dev/stdout | python -m json.tool` reads the record alone; the table and the
    line naming the file go to stderr."""
    a, b = _diff_inputs(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pipe = subprocess.run(f"{sys.executable} -m cugraphlab diff {a} {b} --json /dev/stdout | "
                          f"{sys.executable} -m json.tool", shell=True, capture_output=True, text=True, env=env,
                          timeout=120)
    assert pipe.returncode == 0, pipe.stderr
    record = json.loads(pipe.stdout)
    assert record["kind"] == "cugraphlab.diff" and {r["label"] for r in record["rows"]} == {"x", "y", "z"}
    assert "median A" in pipe.stderr and "record written to /dev/stdout" in pipe.stderr


def test_a_named_stdout_is_recognised(tmp_path):
    import argparse

    assert cli_args.record_to_stdout(argparse.Namespace(json="/dev/stdout"))
    assert cli_args.record_to_stdout(argparse.Namespace(csv="/dev/fd/1"))
    assert not cli_args.record_to_stdout(argparse.Namespace(json=str(tmp_path / "r.json")))
    assert not cli_args.record_to_stdout(argparse.Namespace(json=None))


class _ClosedPipe(io.TextIOBase):
    """A stdout whose reader has left (``| head -1``): every write raises BrokenPipeError; no fileno of its own."""

    def write(self, s):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("argv", [["info"], ["show", str(RESULTS / "2026-12-01_H200_round4" /
                                                            "2026-12-01_H200_memnodes.json")]])
def test_a_closed_pipe_ends_quietly(argv, monkeypatch, no_gpu, capsys):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert cli.main(argv) == 141  # as a coreutils program killed by SIGPIPE reads in the shell
    monkeypatch.undo()
    assert capsys.readouterr().err == ""


def test_show_piped_to_head_says_nothing_on_stderr():
    big = RESULTS / "2026-11-29_H200" / "2026-11-29_H200_classic.json"
    p = subprocess.Popen([sys.executable, "-m", "cugraphlab", "show", "--plain", str(big)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")))
    assert p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=120)
    assert "Broken pipe" not in err and "Traceback" not in err and err == ""


def test_info_without_cuda_bindings_shows_its_facts_and_what_to_install(monkeypatch, capsys):
    import cuda.bindings

    for name in ("driver", "nvrtc"):
        monkeypatch.setattr(f"cugraphlab.core._door._{name}", None)
        monkeypatch.delattr(cuda.bindings, name, raising=False)
        monkeypatch.setitem(sys.modules, f"cuda.bindings.{name}", None)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)
    assert cli.main(["info"]) == 0
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert err == "" and "numpy" in out and "NVRTC unavailable (cuda-bindings is not installed)" in out
    assert lines[-1].startswith("cuda-bindings is not installed") and "pip install cugraphlab" in lines[-1]
    assert "no usable GPU" not in out


def test_a_cuda_library_not_found_is_one_line_naming_the_install(monkeypatch, capsys):
    class DynamicLibNotFoundError(RuntimeError):  # as cuda.pathfinder names it
        pass

    def missing(name):
        raise DynamicLibNotFoundError("Failure finding libnvrtc.so: no such file in the searched folders")

    monkeypatch.setattr("cugraphlab.core._door.nvrtc_fn", missing)
    assert cli.main(["compile", "--no-cache"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "a CUDA library was not found (Failure finding libnvrtc.so" in lines[0]
    assert "NotFoundError" not in lines[0] and "pip install cugraphlab" in lines[0]


# ------------------------------------------------------------------------------------------------- diff text

def test_diff_figures_keep_a_bounded_width(tmp_path, capsys):
    a, b = _diff_inputs(tmp_path, b_x=[1e300] * 30)
    assert cli.main(["diff", a, b]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) < 250, max(out.splitlines(), key=len)[:300]
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:2] in ("x ", "y ", "z ")}
    assert rows["x"][5] == "1.000e+300" and rows["x"][6].endswith("e+298") and rows["x"][-1] == "SLOWER"
    assert rows["z"][2] == "0" and rows["z"][-2] == "n/a"  # p: no test without samples on both sides
    from cugraphlab.report.diff import _num

    assert [_num(12.0), _num(10.24), _num(1234.5), _num(2.5e7)] == ["12.00", "10.24", "1,234", "2.500e+07"]


# ------------------------------------------------------------------------------------------ files written

def test_the_written_line_names_the_folder_it_created(tmp_path, capsys):
    a, b = _diff_inputs(tmp_path)
    out_path = tmp_path / "new" / "deeper" / "d.json"
    assert cli.main(["diff", a, b, "--json", str(out_path)]) == 0
    assert f"record written to {out_path} (created the folder {tmp_path / 'new'})" in capsys.readouterr().out
    assert cli.main(["diff", a, b, "--json", str(out_path)]) == 0  # the folder is there now: nothing to say
    out = capsys.readouterr().out
    assert f"record written to {out_path}\n" in out and "created the folder" not in out
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "gone" / "target.json")  # a dangling link: its target's folder is created
    assert cli.main(["diff", a, b, "--json", str(link)]) == 0
    assert f"record written to {link} (created the folder {tmp_path / 'gone'})" in capsys.readouterr().out
    assert json.loads((tmp_path / "gone" / "target.json").read_text())["kind"] == "cugraphlab.diff"


def test_compile_lists_registers_in_one_order():
    from types import SimpleNamespace

    from cugraphlab.report.run import render_compile

    def report(registers):
        c = SimpleNamespace(name="hold", kind="cubin", arch="sm_90", image=b"x" * 10, registers=registers,
                            cache_hit=False, seconds=0.0)
        return SimpleNamespace(compiled=[c], nvrtc="13.0", cache_folder=None, note=None)

    assert render_compile(report({"b": 8, "a": 13})) == render_compile(report({"a": 13, "b": 8}))


# --------------------------------------------------------------------------------------- options, parsing

def test_counts_and_seeds_parse_one_way():
    import argparse

    assert cli_args.seed_arg("2^20") == 1 << 20 and cli_args.seed_arg("2^63") == 1 << 63
    assert cli_args.count_arg("2^40") == 1 << 40 and cli_args.count_arg("1_024") == 1024
    words = set()
    for text in ("0", "-1", "2^41", "10000000000000"):
        with pytest.raises(argparse.ArgumentTypeError) as e:
            cli_args.count_arg(text)
        words.add(str(e.value).rsplit(", got", 1)[0])
    assert words == {"must be a whole number from 1 to 2^40"}
    options = {"--threshold", "--seed"}
    assert cli_args.join_negative_values(["diff", "a", "b", "--threshold", "-5%"], options) == \
        ["diff", "a", "b", "--threshold=-5%"]
    assert cli_args.join_negative_values(["--pair", "-x", "--threshold", "5%"], options) == \
        ["--pair", "-x", "--threshold", "5%"]
    commands = cli.build_parser()._commands
    assert "--threshold" in cli_args.single_value_options(commands["diff"])
    assert cli_args.single_value_options(commands["doctor"]) == set()  # a script's own words are left as they are


def test_a_dot_cu_in_capitals_is_a_kernel_source():
    from cugraphlab.cli.measure_work import spec_from_args

    args = cli.build_parser().parse_args(["measure", "K.CU", "--args", "out,x,n"])
    assert spec_from_args(args)["cu"] == "K.CU"


def test_pdl_empty_ops_message_has_single_spaces(capsys):
    assert cli.main(["pdl", "--ops", ""]) == 2  # pdl has no --ops: the empty value is shown as ''
    err = capsys.readouterr().err
    assert "  " not in err.strip() and "unrecognized arguments: --ops ''" in err


def test_skip_reasons_are_cut_at_a_word():
    text = "nvJitLink is not installed here (pip install 'cugraphlab[devlaunch]'): " + "word " * 100
    cut = cut_at_word(text, 120)
    assert len(cut) <= 120 and cut.endswith("…") and cut[:-1].split()[-1] in text.split()
    assert cut_at_word("short reason", 120) == "short reason"


# -------------------------------------------------------------------------------------------------- doctor

def test_doctor_m_finds_a_module_of_the_current_folder(tmp_path, monkeypatch, no_gpu, capsys):
    (tmp_path / "cgl_mod_here.py").write_text("print('ran from the current folder')\n")
    monkeypatch.chdir(tmp_path)
    path_before = list(sys.path)
    assert cli.main(["doctor", "-m", "cgl_mod_here"]) == 0
    assert "ran from the current folder" in capsys.readouterr().out
    assert sys.path == path_before
    sys.modules.pop("cgl_mod_here", None)


# -------------------------------------------------------------------------------- benchmark scripts, no GPU

#: script -> argv (its output under {out}); every benchmark script that measures
SCRIPTS = {
    "classic.py": [], "core_overhead.py": [], "tune_launch_config.py": [], "diff_check.py": ["{out}"],
    "diff_judges.py": ["{out}"], "doctor.py": ["{out}/d.json"], "doctor_cupti.py": ["{out}"],
    "devlaunch.py": ["{out}"], "memnodes.py": ["{out}/m.json"], "native_launch.py": ["{out}"],
    "nodes.py": ["{out}/n.json"], "scaling.py": ["{out}/s.json"], "measure_overhead.py": ["{out}"],
    "measure_overhead_parts.py": ["{out}"], "plugin_false_alarms.py": ["{out}"], "switch.py": ["{out}"],
    "while_fold.py": ["{out}"], "conditional_sanitize_probe.py": ["while"], "ratio_figures.py": ["{out}"],
    "doctor_payoff.py": ["{out}"],
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_benchmark_script_without_a_gpu_says_so_in_one_line(script, tmp_path, monkeypatch, no_gpu, capsys):
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("faulthandler.enable", lambda *a, **k: None)  # pytest's captured stderr has no fileno
    from cugraphlab.bench.records import record

    # a script run here registers its record kinds with classes of a namespace runpy clears: keep them out
    monkeypatch.setattr(record, "_KINDS", dict(record._KINDS))
    monkeypatch.setattr(sys, "argv", [script] + [a.format(out=out) for a in SCRIPTS[script]])
    with pytest.raises(SystemExit) as e:
        runpy.run_path(str(ROOT / "benchmarks" / script), run_name="__main__")
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no usable GPU" in lines[0] and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == [], "created before looking for a GPU"


def test_every_measuring_script_is_covered():
    measuring = {p.name for p in (ROOT / "benchmarks").glob("*.py")
                 if "Device(" in p.read_text() or "device_count" in p.read_text() or "run_main" in p.read_text()}
    assert measuring - set(SCRIPTS) - {"while_sanitize_probe.py"} == set()
