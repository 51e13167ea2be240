"""Lower floors name parameters, the command line names flags, mapped in one place (``cli.args.cli_text``): a Python
caller reads ``size``, the same mistake on the command line reads ``--size``, one line, exit 2. No GPU."""
from __future__ import annotations

import pathlib

import pytest

from cugraphlab.bench.scale.plan import make_config
from cugraphlab.cli import main
from cugraphlab.cli.args import cli_text, flag_of
from cugraphlab.core.errors import CudaError, InvalidArgumentError, positive_int

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_flags_follow_the_parameter_names_with_one_table_of_exceptions():
    assert flag_of("size") == "--size" and flag_of("gil_seconds") == "--gil-seconds"
    assert flag_of("time_cap_s") == "--time-cap" and flag_of("timeout_s") == "--timeout"


def test_a_python_caller_reads_the_parameter_and_the_command_line_the_flag():
    with pytest.raises(InvalidArgumentError) as e:
        make_config(repeats=0)
    assert str(e.value).startswith("repeats must be an integer >= 1") and "--" not in str(e.value)
    assert e.value.params == ("repeats",)
    assert cli_text(e.value).startswith("--repeats must be an integer >= 1")


def test_only_the_named_parameters_become_flags_and_only_as_whole_words():
    e = InvalidArgumentError("size 4,096 does not fit int n: give a smaller size, or declare it as size_t; "
                             "the grid size stays", params=("size",))
    text = cli_text(e)
    assert text.startswith("--size 4,096") and "smaller --size," in text and "size_t" in text
    assert "grid --size" in text  # a whole word is a whole word: messages name a parameter only where they mean it
    assert cli_text(InvalidArgumentError("size is fine here")) == "size is fine here"  # no params: unchanged
    assert cli_text(ValueError("plain")) == "plain"


def test_positive_int_names_its_parameter_for_the_mapping():
    with pytest.raises(InvalidArgumentError) as e:
        positive_int("launches", 0)
    assert e.value.params == ("launches",) and cli_text(e.value).startswith("--launches must be")
    with pytest.raises(InvalidArgumentError) as e:
        positive_int("size (elements)", 0)  # not a parameter's name: left as it is
    assert e.value.params == ()


def test_out_of_memory_names_size_for_python_and_the_flag_for_the_command_line():
    e = CudaError(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", "cuMemAlloc",
                  "The GPU has no room for this: use a smaller size or free other GPU processes.")
    assert "smaller size " in str(e) and "smaller --size " in cli_text(e)


def test_the_command_line_says_the_flag_in_one_line_and_exits_2(capsys):
    code = main(["measure", str(ROOT / "benchmarks" / "measure_demo" / "saxpy.cu"), "--kernel", "saxpy",
                 "--size", "2^10", "--args", "out,x"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "--args gave 2" in err[0], err
