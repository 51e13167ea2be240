"""CLI parsing and behaviour without a GPU (the no-GPU path is forced, so it runs on any machine)."""
from __future__ import annotations

import pytest

from cugraphlab import cli


def test_run_defaults_are_the_classic_experiment():
    a = cli.build_parser().parse_args(["run"])
    assert (a.size, a.iters, a.ops, a.scalar, a.device) == (1_048_576, 5000, "add,mul,sub,relu", 2.0, 0)


def test_run_options_parse():
    a = cli.build_parser().parse_args(["run", "--size", "1_024", "--iters", "50", "--ops", "relu,add",
                                       "--device", "1", "--json", "x.json", "--unroll", "5", "--trace"])
    assert (a.size, a.iters, a.ops, a.device, a.json, a.unroll, a.trace) == (1024, 50, "relu,add", 1, "x.json", 5,
                                                                              True)


@pytest.mark.parametrize("argv", [["run", "--size", "0"], ["run", "--size", "-4"], ["run", "--iters", "x"],
                                  ["run", "--device", "-1"], ["bogus"], []])
def test_bad_options_exit_2(argv, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cugraphlab"), err  # one line, no usage block


@pytest.mark.parametrize("command", [["run"], ["latency"], ["run", "--size", "1000"]])
def test_gpu_commands_without_gpu_print_one_line_and_exit_2(command, no_gpu, capsys):
    assert cli.main(command) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no usable GPU" in lines[0] and "Traceback" not in err


def test_unknown_op_is_refused_before_touching_the_gpu(no_gpu, capsys):
    assert cli.main(["run", "--ops", "add,pow"]) == 2
    err = capsys.readouterr().err
    assert "unknown op 'pow'" in err and "no usable GPU" not in err


def test_compile_without_gpu_reports_every_kernel(no_gpu, capsys):
    assert cli.main(["compile", "--arch", "sm_90"]) == 0
    out = capsys.readouterr().out
    for name in ("add", "mul", "sub", "relu", "fused", "empty"):
        assert f"\n{name} " in out
    assert "sm_90" in out and "miss" in out
    assert cli.main(["compile", "--arch", "sm_90"]) == 0
    assert "hit" in capsys.readouterr().out  # second time from the cache


def test_compile_picks_an_arch_when_no_gpu(no_gpu, capsys):
    assert cli.main(["compile", "--ptx"]) == 0
    out = capsys.readouterr().out
    assert "no GPU found" in out and "ptx" in out


def test_compile_unknown_arch_exit_2(capsys):
    assert cli.main(["compile", "--arch", "sm_42"]) == 2
    assert "does not know arch 'sm_42'" in capsys.readouterr().err


def test_module_entry_point_runs(no_gpu):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "cugraphlab", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "run" in r.stdout and "compile" in r.stdout
