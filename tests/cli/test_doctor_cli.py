"""``cugraphlab doctor``: the parser, a script run under the doctor (exit code, argv, "no capture made"), and a
script whose capture fails on the capture-aware fake driver (diagnosis printed, exit 1)."""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import textwrap

import pytest

from fake_driver import patch_driver

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli_module():
    return importlib.import_module("cugraphlab.cli.doctor")


def parser():
    p = argparse.ArgumentParser(prog="cugraphlab")
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    _cli_module().add_commands(sub, common)
    return p


def test_parser_script_and_its_arguments():
    a = parser().parse_args(["doctor", "train.py", "--epochs", "3", "-v"])
    assert (a.script, a.args, a.gallery, a.module) == ("train.py", ["--epochs", "3", "-v"], False, None)
    assert a.handler.__name__ == "cmd_doctor"


def test_parser_module_and_gallery():
    a = parser().parse_args(["doctor", "-m", "pkg.main", "--lr", "1"])
    assert a.module == ["pkg.main", "--lr", "1"] and a.script is None
    g = parser().parse_args(["doctor", "--gallery", "--device", "1", "--json", "out.json", "--trace"])
    assert g.gallery and g.device == 1 and g.json == "out.json" and g.trace
    with pytest.raises(SystemExit):
        parser().parse_args(["doctor", "--gallery", "--device", "-3"])


def test_bad_input_is_an_invalid_argument(tmp_path):
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError):
        _cli_module().cmd_doctor(parser().parse_args(["doctor"]))
    with pytest.raises(InvalidArgumentError):
        _cli_module().cmd_doctor(parser().parse_args(["doctor", str(tmp_path / "missing.py")]))
    with pytest.raises(InvalidArgumentError):
        _cli_module().cmd_doctor(parser().parse_args(["doctor", "--gallery", "x.py"]))


def test_a_script_without_a_capture_keeps_its_exit_code(tmp_path, capsys):
    script = tmp_path / "cpu_only.py"
    script.write_text(textwrap.dedent("""
        import sys
        print("argv", sys.argv[1:])
        sys.exit(3)
    """))
    code = _cli_module().cmd_doctor(parser().parse_args(["doctor", str(script), "--n", "2"]))
    out = capsys.readouterr().out
    assert code == 3
    assert "argv ['--n', '2']" in out and "no capture made" in out
    assert sys.argv[0] != str(script)  # restored


def test_a_module_runs_with_its_arguments(tmp_path, capsys, monkeypatch):
    (tmp_path / "doctor_probe_mod.py").write_text("import sys\nprint('mod argv', sys.argv[1:])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = _cli_module().cmd_doctor(parser().parse_args(["doctor", "-m", "doctor_probe_mod", "--lr", "1"]))
    out = capsys.readouterr().out
    assert code == 0 and "mod argv ['--lr', '1']" in out and "no capture made" in out


def test_a_script_that_raises_exits_1(tmp_path, capsys):
    script = tmp_path / "boom.py"
    script.write_text("raise RuntimeError('boom')\n")
    assert _cli_module().cmd_doctor(parser().parse_args(["doctor", str(script)])) == 1
    assert "no capture made" in capsys.readouterr().out


def test_a_script_whose_capture_fails_gets_its_diagnosis_and_exit_1(tmp_path, capsys, monkeypatch):
    from capture_driver import CaptureFakeDriver

    patch_driver(monkeypatch, CaptureFakeDriver())
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import cugraphlab as cgl
        from cugraphlab.graphs import capture

        with cgl.Device(0) as dev, dev.create_stream() as s:
            try:
                with capture(s):
                    s.synchronize()
            except cgl.CaptureError as e:
                print("caught", e.name)
    """))
    code = _cli_module().cmd_doctor(parser().parse_args(["doctor", str(script)]))
    out = capsys.readouterr().out
    assert code == 1
    assert "caught CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" in out
    assert "1 capture(s), 1 with findings" in out
    assert "cuStreamSynchronize" in out and "user_script.py:8, in <module>" in out
    assert "fix:" in out
    import gc

    gc.collect()  # release what the script dropped while this fake is installed
