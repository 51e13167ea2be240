"""The chain's wiring (which buffer each op reads and writes) is written once, in experiment.ops.op_arguments: the
compare stacks' op steps and driver argument values are read from it."""
from __future__ import annotations

from types import SimpleNamespace

from cugraphlab.bench.compare.driver_data import DriverData
from cugraphlab.bench.compare.shared import op_steps
from cugraphlab.experiment.ops import op_arguments

OPS = ("add", "mul", "sub", "relu")


def test_op_steps_follow_the_one_wiring():
    outs = ["t1", "t2", "t3", "out"]
    steps = op_steps(OPS, "x", "y", outs, 2.0)
    assert steps == [("add", "t1", "x", "y"), ("mul", "t2", "t1", 2.0), ("sub", "t3", "t2", "y"),
                     ("relu", "out", "t3", None)]


def test_driver_values_are_the_wiring_with_addresses():
    buf = {name: SimpleNamespace(ptr=0x1000 * (i + 1)) for i, name in enumerate(("x", "y", "t1", "t2", "t3", "o"))}
    data = SimpleNamespace(ops=OPS, x=buf["x"], y=buf["y"], outs=[buf["t1"], buf["t2"], buf["t3"], buf["o"]],
                           scalar=2.0, n=1024)
    values = DriverData.op_values(data)
    wiring = op_arguments(OPS, buf["x"], buf["y"], data.outs, 2.0, 1024)
    assert [(n, k) for n, k, _ in values] == [(n, k) for n, k, _ in wiring]
    assert values[0][2] == (0x3000, 0x1000, 0x2000, 1024)       # add: t1 = x + y
    assert values[1][2] == (0x4000, 0x3000, 2.0, 1024)          # mul: t2 = t1 * 2
    assert values[3][2] == (0x6000, 0x5000, 1024)               # relu: out = relu(t3)
