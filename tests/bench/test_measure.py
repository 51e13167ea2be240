"""Sweep helpers and measurement CLI parsing (no GPU needed)."""
from __future__ import annotations

import pytest

from cugraphlab import cli
from cugraphlab.bench.measure.sweep import bytes_per_iteration, chain_ops


def test_chain_ops_repeat_the_classic_four():
    assert chain_ops(1) == ("add",)
    assert chain_ops(6) == ("add", "mul", "sub", "relu", "add", "mul")


def test_bytes_per_iteration_counts_reads_and_writes():
    n = 1000
    assert bytes_per_iteration(("add", "mul", "sub", "relu"), n, "graph") == (12 + 8 + 12 + 8) * n
    assert bytes_per_iteration(("add", "mul", "sub", "relu"), n, "fused") == 12 * n


def test_sweep_sizes_parse_powers():
    a = cli.build_parser().parse_args(["sweep", "--sizes", "1024,2^20", "--lengths", "1,4"])
    assert a.sizes == [1024, 1 << 20] and a.lengths == [1, 4]
    assert cli.main(["sweep", "--sizes", "0"]) == 2


@pytest.mark.parametrize("argv", [["latency", "--size", "0"], ["timeline", "--iters", "0"]])
def test_measure_commands_refuse_bad_values(argv):
    assert cli.main(argv) == 2
