"""The checks of the GPU exercises rewritten for issue 33 section 4 (02-2, 06-1, 07-2, 15-2), run on the CPU: each
check cell is executed as the notebook has it, with CPU stand-ins for what the GPU would have made (a chain's
inputs and NumPy results, a graph's node kinds, a buffer's contents); it must accept an answer shaped as the
solution's and reject the plausible wrong answer of exercise_wrong_answers.py. The GPU run
(tests/package/test_exercise_checks_gpu.py) does the same with the real objects."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from exercise_wrong_answers import WRONG  # tests/package is on sys.path (rootdir-less test folder)

import cugraphlab as cgl

SRC = Path(__file__).resolve().parents[2] / "notebooks" / "src"
OPS = "add,mul,sub,relu"


def _check_cell(stem: str, n: int) -> str:
    cells = re.split(r"^(?=# %%)", (SRC / f"{stem}.py").read_text(), flags=re.M)
    (cell,) = [c for c in cells if re.match(rf"# %% \[check {n} gpu\]", c)]
    return cell


def _verdict(stem: str, n: int, ns: dict) -> tuple[bool, str]:
    """Run check cell n of notebooks/src/STEM.py in ``ns``; grade(n, answer, test) -> test(answer)."""
    seen = {}
    ns.update(np=np, cgl=cgl, grade=lambda k, answer, test: seen.update(result=test(answer)))
    exec(compile(_check_cell(stem, n), f"{stem} check {n}", "exec"), ns)
    return seen["result"]


def _with_wrong(key: str, ns: dict) -> dict:
    ns.update(np=np, cgl=cgl)
    exec(WRONG[key], ns)
    return ns


class _Chain:
    def __init__(self, rng, n=4096):
        self.ops, self.scalar, self.n = OPS, 2.0, n
        self.x_host = rng.standard_normal(n, dtype=np.float32)
        self.y_host = rng.standard_normal(n, dtype=np.float32)
        self.x = SimpleNamespace(to_numpy=lambda: self.x_host.copy())

    def expected(self):
        return cgl.reference(self.ops, self.x_host, self.y_host, self.scalar)


@pytest.fixture
def rng():
    return np.random.default_rng(33)


def test_02_2_two_replays_each_from_its_own_inputs(rng):
    chain = _Chain(rng)
    replays = []
    for _ in range(2):
        x, y = rng.standard_normal(chain.n, dtype=np.float32), rng.standard_normal(chain.n, dtype=np.float32)
        replays.append((x, y, cgl.reference(OPS, x, y, 2.0)))
    ns = {"chain": chain, "two_replays": replays}
    assert _verdict("02_capture_replay", 2, dict(ns))[0]
    wrong = _with_wrong("02-2", dict(ns))
    ok, found = _verdict("02_capture_replay", 2, wrong)
    assert not ok and "replay 2" in found, found


def test_06_1_cumemalloc_refused_and_the_stream_ordered_allocation_recorded():
    graph = SimpleNamespace(node_kinds=lambda: ["KERNEL", "MEM_ALLOC", "MEM_FREE"])
    ns = {"alloc_ways": {"cuMemAlloc": "allocation", "cuMemAllocAsync": None}, "async_graph": graph}
    assert _verdict("06_capture_doctor", 1, dict(ns))[0]
    assert not _verdict("06_capture_doctor", 1, _with_wrong("06-1", dict(ns)))[0]
    # the right dict without the graph's alloc and free nodes is refused too
    flat = dict(ns, async_graph=SimpleNamespace(node_kinds=lambda: ["KERNEL"]))
    assert not _verdict("06_capture_doctor", 1, flat)[0]


def test_07_2_four_batches_each_from_its_own_chain(rng):
    batches = [_Chain(rng) for _ in range(4)]
    ns = {"batches": batches, "batched": SimpleNamespace(node_count=16),
          "batch_outs": [b.expected() for b in batches]}
    assert _verdict("07_unroll_payoff", 2, dict(ns))[0]
    ok, found = _verdict("07_unroll_payoff", 2, _with_wrong("07-2", dict(ns)))
    assert not ok and "batch 0" in found, found


def test_15_2_the_graph_read_the_new_buffer_and_nothing_was_copied(rng):
    chain = _Chain(rng)
    xh_moved = rng.standard_normal(chain.n, dtype=np.float32)
    ns = {"chain": chain, "xh_moved": xh_moved,
          "moved_out": cgl.reference(OPS, xh_moved, chain.y_host, chain.scalar)}
    assert _verdict("15_pitfalls", 2, dict(ns))[0]
    assert not _verdict("15_pitfalls", 2, _with_wrong("15-2", dict(ns)))[0]
    # pitfall 1's fix (the new inputs copied into the captured buffer) is not this exercise's
    chain.x_host = xh_moved.copy()
    ok, found = _verdict("15_pitfalls", 2, dict(ns))
    assert not ok and "copied into chain.x: True" in found, found
