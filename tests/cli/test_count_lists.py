"""Lists of counts (graph lengths, branch widths, kernels per chain) take every comma as a separator; lists of sizes
keep refusing what reads like a thousands separator."""
from __future__ import annotations

import argparse

import pytest

from cugraphlab import cli
from cugraphlab.cli.args import count_list_arg, size_list_arg


@pytest.mark.parametrize("text, value", [("4,128,256", [4, 128, 256]), ("1,024", [1, 24]), ("2^3, 16", [8, 16]),
                                         ("7", [7]), ("1_000,2", [1000, 2])])
def test_a_count_list_splits_at_every_comma(text, value):
    assert count_list_arg(text) == value


@pytest.mark.parametrize("text", ["", "1,,2", "4,", "0,4", "a,b", "-1", "2^41"])
def test_a_bad_count_list_is_an_argparse_error(text):
    with pytest.raises(argparse.ArgumentTypeError):
        count_list_arg(text)


@pytest.mark.parametrize("text", ["4,128,256", "1,024", "1,048,576"])
def test_a_size_list_still_refuses_the_thousands_pattern(text):
    with pytest.raises(argparse.ArgumentTypeError, match="ambiguous"):
        size_list_arg(text)


@pytest.mark.parametrize("argv, attr", [(["scaling", "--lengths", "4,128,256"], "lengths"),
                                        (["scaling", "--widths", "1,2,4"], "widths"),
                                        (["sweep", "--lengths", "4,128,256"], "lengths")])
def test_the_commands_take_count_lists(argv, attr):
    got = getattr(cli.build_parser().parse_args(argv), attr)
    assert got == [int(x) for x in argv[-1].split(",")]


def test_sweep_sizes_stay_size_lists(capsys):
    assert cli.main(["sweep", "--sizes", "4,128,256"]) == 2
    assert "ambiguous" in capsys.readouterr().err
