"""``cugraphlab doctor --cupti``: the flag reaches the script run and the gallery; without cupti-python one line,
exit 2 (an UnsupportedError, which the CLI prints as one line)."""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli_module():
    return importlib.import_module("cugraphlab.cli.doctor")


def parser(mod):
    p = argparse.ArgumentParser(prog="cugraphlab")
    sub = p.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    mod.add_commands(sub, common)
    return p


def test_the_flag_parses_for_scripts_and_the_gallery():
    mod = _cli_module()
    a = parser(mod).parse_args(["doctor", "--cupti", "train.py", "--lr", "1"])
    assert a.cupti and a.script == "train.py" and a.args == ["--lr", "1"]
    assert parser(mod).parse_args(["doctor", "--gallery", "--cupti"]).cupti
    assert not parser(mod).parse_args(["doctor", "--gallery"]).cupti


def test_without_cupti_python_the_script_run_is_one_line_unsupported(tmp_path, monkeypatch, capsys):
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.doctor import cupti as doctor_cupti

    monkeypatch.setattr(doctor_cupti, "_loaded", None)
    monkeypatch.setitem(sys.modules, "cupti", None)
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    mod = _cli_module()
    with pytest.raises(UnsupportedError, match=r"^cupti-python is not installed: pip install cupti-python$"):
        mod.cmd_doctor(parser(mod).parse_args(["doctor", "--cupti", str(script)]))
    assert "ran" not in capsys.readouterr().out  # refused before the script ran
    with pytest.raises(UnsupportedError, match="cupti-python is not installed"):
        mod.cmd_doctor(parser(mod).parse_args(["doctor", "--gallery", "--cupti", "--no-overhead"]))


def test_the_cli_prints_one_line_and_exits_2(monkeypatch, capsys):
    from cugraphlab import cli
    from cugraphlab.graphs.doctor import cupti as doctor_cupti

    if not hasattr(cli, "main"):
        pytest.skip("the CLI package has no main()")
    monkeypatch.setattr(doctor_cupti, "_loaded", None)
    monkeypatch.setitem(sys.modules, "cupti", None)
    try:
        code = cli.main(["doctor", "--gallery", "--cupti", "--no-overhead"])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "cupti-python is not installed" in err[0], err
