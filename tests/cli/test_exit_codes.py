"""The CLI never ends in a traceback and exits 0 only when it measured (issue 13 §3). Each test failed on the CLI
before the renovation (flat cli.py)."""
from __future__ import annotations

import pytest

from cugraphlab import cli
from cugraphlab.bench.compare.records import CompareResult, StackRow


def _one_line(capsys, command: str) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cugraphlab {command}".rstrip()), err
    assert "Traceback" not in err
    return lines[0]


def test_a_compare_result_that_measured_nothing_is_never_ok():
    rows = [StackRow("torch", "-", "-", 1024, 1, status="unavailable", note="not installed")]
    result = CompareResult(config={}, rows=rows)
    assert result.measured_rows == [] and result.ok is False
    assert "torch: not installed" in result.failure_summary()


def test_compare_without_a_gpu_is_one_line_and_exit_2_before_any_worker(no_gpu, monkeypatch, capsys):
    def refuse(*a, **k):
        raise AssertionError("a worker was started without a GPU")

    monkeypatch.setattr("cugraphlab.bench.compare.session.compare_checked", refuse)
    monkeypatch.setattr("cugraphlab.bench.compare.compare_checked", refuse)
    assert cli.main(["compare", "--stacks", "torch"]) == 2
    assert "no usable GPU" in _one_line(capsys, "compare")


def test_compare_that_measured_no_row_exits_2(fake_driver, monkeypatch, capsys):
    rows = [StackRow(s, "-", "-", 1024, 1, status="unavailable", note="import failed") for s in ("torch", "jax")]
    monkeypatch.setattr("cugraphlab.bench.compare.compare_checked", lambda *a, **k: CompareResult(config={}, rows=rows))
    assert cli.main(["compare", "--stacks", "torch,jax", "--quiet"]) == 2
    line = _one_line(capsys, "compare")
    assert "nothing was measured" in line and "torch: import failed" in line


@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
def test_an_unwritable_output_path_is_refused_before_measuring(option, tmp_path, no_gpu, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    argv = {"--json": ["run"], "--csv": ["sweep"], "--plot": ["compare"]}[option]
    assert cli.main([*argv, option, str(blocker / "out")]) == 2
    line = _one_line(capsys, argv[0])
    assert option in line and "not a folder" in line and "no usable GPU" not in line  # checked before the GPU


def test_an_output_path_that_is_a_folder_is_refused(tmp_path, no_gpu, capsys):
    assert cli.main(["latency", "--json", str(tmp_path)]) == 2
    assert "is a folder" in _one_line(capsys, "latency")


def test_an_oserror_at_write_time_is_one_line(monkeypatch, capsys):
    def handler(args):
        raise PermissionError(13, "Permission denied", "result.json")

    monkeypatch.setattr("cugraphlab.cli.run.cmd_info", handler)
    assert cli.main(["info"]) == 2
    assert "could not write result.json: Permission denied" in _one_line(capsys, "info")


def test_scale_defaults_fit_a_two_core_machine(monkeypatch):
    from cugraphlab.bench.scale.plan import make_config

    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 2)
    assert make_config().threads == (1, 2)
    with pytest.raises(Exception, match="more than the 2 CPU cores"):
        make_config(threads="1,8")  # only a value the user gave is refused


def test_scale_with_defaults_starts_on_a_two_core_machine(fake_driver, monkeypatch, capsys):
    from cugraphlab.bench.scale.run import ScaleResult

    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 2)
    seen = {}

    def fake_run(config, progress=None):
        seen["threads"] = config.threads
        return ScaleResult(config=config.to_dict(), points=[])

    monkeypatch.setattr("cugraphlab.bench.scale.run_scale", fake_run)
    cli.main(["scale", "--gil-seconds", "0"])
    assert seen["threads"] == (1, 2)


def test_a_size_larger_than_free_memory_is_bad_input(fake_driver, monkeypatch, capsys):
    from cugraphlab.core.device import Device
    from cugraphlab.core.errors import DeviceMemoryError, InvalidArgumentError

    enum = fake_driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY
    real = fake_driver.cuMemAlloc
    monkeypatch.setattr(fake_driver, "cuMemAlloc", lambda nbytes: (enum, None) if nbytes > 1 << 34 else real(nbytes),
                        raising=False)
    with Device(0) as dev:
        with pytest.raises(DeviceMemoryError) as e:
            dev.array(1 << 36)
        assert isinstance(e.value, InvalidArgumentError)
        text = str(e.value)
        assert f"{(1 << 36) * 4:,} bytes" in text and f"{1 << 33:,} bytes are free" in text
        dev.array(16).close()  # the context stays usable


def test_info_without_a_driver_shows_what_it_can_know(no_gpu, capsys):
    """info works without a GPU (the README says so): its facts, then why no GPU answered, and exit 0."""
    assert cli.main(["info"]) == 0
    out, err = capsys.readouterr()
    assert "cuda-bindings" in out and "NVRTC" in out and "archs: sm_" in out and "compile cache" in out
    assert "fit:" in out and err == ""
    last = out.strip().splitlines()[-1]
    assert last.startswith("no usable GPU: ") and "compile, diff, show and info run without one" in last


def test_version(capsys):
    from cugraphlab import __version__

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"cugraphlab {__version__}"


@pytest.mark.parametrize("argv", [["run"], ["graph"], ["latency"], ["timeline"], ["pdl"], ["conditional"],
                                  ["update"], ["scale"], ["compare"]])
def test_sizes_are_parsed_one_way_by_every_command(argv, capsys):
    parser = cli.build_parser()
    for text, value in (("2^20", 1 << 20), ("1_048_576", 1 << 20), ("1048576", 1 << 20)):
        got = parser.parse_args([*argv, "--size", text]).size
        assert got in (value, [value]), (argv, text, got)
    assert cli.main([*argv, "--size", "1,024"]) == 2
    assert "ambiguous" in _one_line(capsys, argv[0])


def test_no_command_ends_in_a_traceback_on_bad_input(capsys):
    for argv in (["run", "--iters", "x"], ["bogus"], ["sweep", "--sizes", "0"], ["scale", "--launches", "abc"]):
        assert cli.main(argv) == 2
        _one_line(capsys, "")
