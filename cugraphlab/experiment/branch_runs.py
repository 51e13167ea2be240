"""Running the graphs of ``BranchGraphs`` and checking what they did (experiment.branches builds them).

``BranchRuns`` is the half of ``BranchGraphs`` that launches: fresh random inputs with every output poisoned, inputs
forced to one side of the IF/ELSE decision (``predict_sign``: what cond_sign decides, from NumPy float32), one launch
of a graph, and ``BranchCheck``: which body should have run, which did (the bodies whose outputs are no longer the
poison), and the chosen body's output bit for bit against NumPy (or every output untouched when no body should run).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.memory import POISON_BITS
from .ops import Verification, compare_bits, reference

if TYPE_CHECKING:
    from ..graphs.exec import GraphExec

__all__ = ["BranchCheck", "BranchRuns", "predict_sign"]


def predict_sign(x: np.ndarray, probe: int) -> bool:
    """What cond_sign decides: whether x[0] + ... + x[probe-1], summed in order in float32, is > 0."""
    s = np.float32(0)
    for v in np.asarray(x[:probe], dtype=np.float32):
        s = np.float32(s + v)
    return bool(s > 0)


@dataclass(frozen=True)
class BranchCheck:
    """One launch of a graph with several bodies checked: which body should have run, which did, and the bits."""

    kind: str  # "IF/ELSE", "SWITCH", "4 IF nodes", "SWITCH sizes", "IF"
    expected: int | None  # the body that had to run (None: none)
    ran: tuple[int, ...]  # the bodies whose outputs were written
    output: Verification  # the chosen body's output against NumPy (or the untouched poison when none ran)
    note: str = ""

    @property
    def ok(self) -> bool:
        want = () if self.expected is None else (self.expected,)
        return self.ran == want and self.output.ok

    def __str__(self) -> str:
        want = "none" if self.expected is None else f"body {self.expected}"
        ran = ", ".join(map(str, self.ran)) or "none"
        extra = f" ({self.note})" if self.note else ""
        return f"{self.kind}: expected {want}, ran {ran}{extra}; {self.output}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "expected": self.expected, "ran": list(self.ran), "ok": self.ok,
                "mismatches": self.output.mismatches, "note": self.note, "text": str(self)}


def _poison_pattern(n: int) -> np.ndarray:
    return np.full(n, POISON_BITS, dtype=np.uint32).view(np.float32)


class BranchRuns:
    """The launches and checks of a ``BranchGraphs`` (a mixin: the graphs, buffers, ``chain``, ``bodies``,
    ``variants``, ``sizes``, ``exec_of`` and ``set_index`` are the BranchGraphs')."""

    def poison(self) -> None:
        """Every body's outputs and the chain's own outputs to the NaN pattern."""
        s = self.chain.stream
        for b in self.bodies:
            for a in b.outs:
                a.poison(s)
        self.chain.poison()

    def fresh(self, index: int | None = None) -> None:
        """Fresh random inputs, every output poisoned, and (given) the SWITCH index set."""
        self.chain.randomize()
        self.poison()
        if index is not None:
            self.set_index(index)

    def force_sign(self, positive: bool) -> None:
        """Fresh inputs whose first ``probe`` elements of x sum (in float32, in order) to > 0 or to <= 0; the sum
        of the negated elements is exactly the negated sum, so flipping the sign flips the decision."""
        x, y = self.chain.randomize()
        if predict_sign(x, self.probe) != positive:
            x = x.copy()
            x[:self.probe] = -x[:self.probe]
            if predict_sign(x, self.probe) != positive:  # a sum of exactly 0 stays 0: move one element
                x[0] = np.float32(1.0 if positive else -1.0)
                x[1:self.probe] = 0
            self.chain.set_inputs(x, y)
        assert predict_sign(self.chain.x_host, self.probe) == positive

    def _expected(self, variant) -> np.ndarray:  # a branches.ChainVariant
        c = self.chain
        return reference(variant.ops, c.x_host, c.y_host, c.scalar)

    def check_bodies(self, kind: str, expected: int | None, note: str = "") -> BranchCheck:
        """Which variant bodies wrote their outputs, and whether the expected one is bit-exact (waits)."""
        s = self.chain.stream
        poison = _poison_pattern(self.chain.n).view(np.uint32)
        ran, results = [], {}
        for i, b in enumerate(self.bodies):
            got = b.result.to_numpy(stream=s)
            results[i] = got
            if not (got.view(np.uint32) == poison).all():
                ran.append(i)
        if expected is None:
            out = compare_bits(f"{kind} (no body: outputs untouched)",
                               np.concatenate([results[i] for i in range(self.count)]),
                               _poison_pattern(self.chain.n * self.count))
        else:
            out = compare_bits(f"{kind} body {expected} ({self.variants[expected].name})", results[expected],
                               self._expected(self.variants[expected]))
        return BranchCheck(kind, expected, tuple(ran), out, note)

    def check_size(self, kind: str, k: int) -> BranchCheck:
        """The chain's output after a run at sizes[k]: the first sizes[k] elements bit-exact, the rest untouched."""
        c, n = self.chain, self.sizes[self._size_index(k)]
        got = c.out.to_numpy(stream=c.stream)
        want = _poison_pattern(c.n)
        want[:n] = reference(c.ops, c.x_host[:n], c.y_host[:n], c.scalar)
        poison = _poison_pattern(c.n).view(np.uint32)
        written = got.view(np.uint32) != poison
        # which size ran: the length of the written prefix (no result of the chain is the poison NaN); sizes may
        # repeat for tiny n (1, 1, 1, 1), so the expected index is named when its size matches
        length = int(written.sum()) if written[:int(written.sum())].all() else -1
        ran = (k,) if length == n else tuple(i for i, m in enumerate(self.sizes) if m == length)[:1]
        return BranchCheck(kind, k, ran, compare_bits(f"{kind} {n:,} floats", got, want))

    # --- one launch each, checked ----------------------------------------------------------------------------
    def _launch_once(self, exe: GraphExec) -> None:
        exe.launch(self.chain.stream)

    def run_if_else(self, positive: bool) -> BranchCheck:
        """Inputs forced to one side, one launch of the IF/ELSE graph: the GPU's decision (read back) must be the
        NumPy prediction, and only that body ran, bit-exact."""
        exe = self.exec_of("if_else")
        self.force_sign(positive)
        self.poison()
        self.taken.fill_bits(0xFFFFFFFF, self.chain.stream)
        self._launch_once(exe)
        taken = int(self.taken.to_numpy(stream=self.chain.stream)[0])
        want = 0 if positive else 1
        decided = {1: "IF", 0: "ELSE"}.get(taken, str(taken))
        check = self.check_bodies("IF/ELSE", want, note=f"GPU decided {decided}")
        if taken != (1 if positive else 0):
            return BranchCheck(check.kind, want, check.ran,
                               Verification("IF/ELSE decision", 1, 1, 0, float(taken), float(positive)), check.note)
        return check

    def run_switch(self, index: int) -> BranchCheck:
        """One launch of the SWITCH graph with ``index``: body ``index`` ran alone, bit-exact (none for index >= K)."""
        exe = self.exec_of("switch")
        self.fresh(index)
        self._launch_once(exe)
        return self.check_bodies("SWITCH", index if index < self.count else None)

    def run_if_sequence(self, index: int) -> BranchCheck:
        """One launch of the K-IF-nodes graph with ``index``: IF ``index`` ran alone (none for index >= K)."""
        exe = self.exec_of("if_sequence")
        self.fresh(index)
        self._launch_once(exe)
        return self.check_bodies(f"{self.count} IF nodes", index if index < self.count else None)

    def run_if(self, index: int) -> BranchCheck:
        """One launch of the single-IF graph: its body (variant 0) runs for index 0 only."""
        exe = self.exec_of("if")
        self.fresh(index)
        self._launch_once(exe)
        return self.check_bodies("IF", 0 if index == 0 else None)

    def run_exec(self, key: str, k, index: int, kind: str, expected: int | None) -> BranchCheck:
        """One launch of ``exec_of(key, k)`` with ``index`` on fresh inputs: variant body ``expected`` ran alone,
        bit-exact (none ran, every output untouched, for None); ``selected_body`` says which body that is."""
        exe = self.exec_of(key, k)
        self.fresh(index)
        self._launch_once(exe)
        return self.check_bodies(kind, expected)

    def run_size(self, k: int, via: str = "switch") -> BranchCheck:
        """The chain at sizes[k], by the sizes SWITCH (``via="switch"``) or by its own graph (``"graph"``)."""
        self._size_index(k)
        exe = self.exec_of("sizes_switch") if via == "switch" else self.exec_of("size", k)
        self.fresh(k)
        self._launch_once(exe)
        return self.check_size("SWITCH sizes" if via == "switch" else "size graph", k)
