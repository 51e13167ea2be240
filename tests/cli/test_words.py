"""The words of issue 24: compile's colon, no Python class names in what a user reads, install advice that matches
the lean install, a cache folder that cannot be used said so, and compare's one validation with keywords."""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from cugraphlab import cli
from cugraphlab.core.errors import NoDeviceError

ROOT = Path(__file__).resolve().parents[2]


def test_compile_without_a_gpu_heads_its_table_with_a_colon():
    from cugraphlab.experiment.kernel_set import CompileReport
    from cugraphlab.report.run import render_compile

    note = "no GPU found: compiling for the newest arch NVRTC knows (pass --arch to choose)"
    head = render_compile(CompileReport("sm_90", "cubin", note, "13.0", None, [])).splitlines()[0]
    assert head == f"cugraphlab compile: {note}"
    assert render_compile(CompileReport("sm_90", "cubin", "", "13.0", None, [])).splitlines()[0] == "cugraphlab compile"


def test_a_missing_driver_library_is_said_without_the_class_name(monkeypatch):
    """cuda.pathfinder raises DynamicLibNotFoundError; the user reads what was not found, not the class."""
    from cugraphlab.core import device

    class DynamicLibNotFoundError(RuntimeError):
        pass

    def cu_init(flags):
        raise DynamicLibNotFoundError('"cuda" is an NVIDIA driver library and can only be found via system search')

    monkeypatch.setattr(device, "driver_fn", lambda name: cu_init)
    monkeypatch.setattr(device, "_initialised", False)
    with pytest.raises(NoDeviceError) as e:
        device.init()
    assert "DynamicLibNotFoundError" not in str(e.value) and "libcuda.so.1 could not be loaded" in str(e.value)


def test_a_compare_row_of_our_own_error_has_no_class_name():
    from cugraphlab.bench.compare.way import short_error

    assert short_error(NoDeviceError("no NVIDIA driver found")) == "no NVIDIA driver found"
    assert short_error(ImportError("no module x")) == "ImportError: no module x"


def test_the_install_advice_is_the_lean_install():
    from cugraphlab.core import _calls

    source = inspect.getsource(_calls)
    assert "cuda-bindings[all]" not in source
    assert "pip install cugraphlab" in _calls.BINDINGS_INSTALL and "[all]" not in _calls.NVJITLINK_INSTALL


def test_a_cache_dir_that_is_a_file_is_said_to_be_unusable(tmp_path, monkeypatch, no_gpu, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("CUGRAPHLAB_CACHE_DIR", str(blocker))
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("compile cache:"))
    assert line == (f"compile cache: {blocker} (not usable: {blocker} is a file, not a folder; every kernel is "
                    f"compiled anew)")
    from cugraphlab.core.cache import Cache

    assert Cache(blocker / "sub").problem() == f"{blocker} is a file, not a folder"
    assert Cache(tmp_path / "fresh" / "cache").problem() is None and Cache(None).describe() == "off"


def test_compare_validates_once_with_keywords_and_runs_what_it_validated(monkeypatch, no_gpu):
    import cugraphlab.bench.compare as wing
    from cugraphlab.bench.compare import CompareResult, session
    from cugraphlab.cli.compare import cmd_compare
    from cugraphlab.core.errors import InvalidArgumentError

    calls = []
    real = session.validate_compare

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    ran = {}

    def run(config, **kw):
        ran["config"] = config
        return CompareResult(config=config, rows=[])

    monkeypatch.setattr(wing, "validate_compare", spy)
    monkeypatch.setattr(session, "validate_compare", spy)
    monkeypatch.setattr(wing, "compare_checked", run)
    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 1)
    args = cli.build_parser().parse_args(["compare", "--size", "1024,1024,2^20", "--stacks", "torch", "--quiet"])
    with pytest.raises(InvalidArgumentError, match="nothing was measured"):
        cmd_compare(args)
    assert len(calls) == 1 and calls[0][0] == ()
    assert ran["config"]["sizes"] == [1024, 1 << 20] and ran["config"]["stacks"] == ["torch"]
    with pytest.raises(TypeError):
        real([1024], 10, "add", 1, 0, 2.0, None, 1, None, 0, 10.0)  # positional arguments are refused
