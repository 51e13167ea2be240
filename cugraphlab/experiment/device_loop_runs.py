"""Running ``DeviceLoop``'s loops and launches, checked (experiment.device_loop builds them).

``DeviceLoopRuns`` is the half of ``DeviceLoop`` that runs: one device-driven loop (or one device launch) on fresh
inputs, its state read back, the iterations against NumPy's prediction (``device_loop.predict_loop``), the device
launch status, and the result bit for bit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InvalidArgumentError, positive_int
from ..graphs.device_launch import cuda_error_name
from .ops import Verification, compare_bits, reference

if TYPE_CHECKING:
    from ..graphs.exec import GraphExec

__all__ = ["DeviceLoopRuns", "DeviceLoopCheck", "every_label", "predict_loop"]


def every_label(every: int) -> str:
    """How a loop deciding once per ``every`` iterations is named everywhere: "decision every K iterations"."""
    return f"decision every {int(every)} iterations"


def predict_loop(ops, x: np.ndarray, y: np.ndarray, scalar: float, *, feedback: bool, limit: int,
                 probe: int = 0, threshold: float = math.inf, every: int = 1) -> tuple[int, float, np.ndarray]:
    """(iterations, total, result) of a device loop, computed in NumPy float32 exactly as the kernels round.

    Each iteration computes the chain (with ``feedback`` on the previous result, else on x again), adds
    sum(result[:probe]) (in order, float32) to the total, and goes on while total < threshold and fewer than
    ``limit`` iterations ran. ``every``: the decision is made only after every ``every`` iterations (a graph
    holding that many); ``limit`` must be a multiple of it (InvalidArgumentError otherwise).
    """
    limit = positive_int("limit", limit)
    every = positive_int("every", every)
    if limit % every:
        raise InvalidArgumentError(f"limit ({limit}) must be a multiple of every ({every}): a loop deciding once "
                                   f"per {every} iterations runs a multiple of {every}")
    thr = np.float32(threshold)
    acc, count = np.float32(0), 0
    src = np.asarray(x, dtype=np.float32)
    out = None
    while True:
        if out is None or feedback:
            out = reference(ops, src, y, scalar)
            s = np.float32(0)
            for v in out[:probe]:
                s = np.float32(s + v)
            if feedback:
                src = out
        acc = np.float32(acc + s)
        count += 1
        if count % every == 0 and not (acc < thr and count < limit):
            return count, float(acc), out


@dataclass(frozen=True)
class DeviceLoopCheck:
    """One device-launched run checked: iterations against the expectation, launch status, output bits."""

    kind: str
    expected_iterations: int
    iterations: int
    status: int
    launches: int
    output: Verification

    @property
    def ok(self) -> bool:
        return self.status == 0 and self.iterations == self.expected_iterations and self.output.ok

    def __str__(self) -> str:
        launch = "" if self.status == 0 else f"; device launch failed: {cuda_error_name(self.status)} ({self.status})"
        return (f"{self.kind}: {self.iterations} iteration(s) (expected {self.expected_iterations}), "
                f"{self.launches} device launch(es){launch}; {self.output}")


class DeviceLoopRuns:
    """The runs and checks of a ``DeviceLoop`` (a mixin: the chain, the execs, ``enqueue``, ``read_state``, ``fresh``
    and ``result_buffer`` are the DeviceLoop's)."""

    def _check(self, kind: str, exe: GraphExec, expected: int, feedback: bool, want: np.ndarray,
               want_acc: float | None = None) -> DeviceLoopCheck:
        self.enqueue(exe)
        st = self.read_state()
        got = self.result_buffer(feedback).to_numpy(stream=self.chain.stream)
        out = compare_bits(kind, got, want)
        if out.ok and want_acc is not None and np.float32(st.acc).view(np.uint32) != np.float32(want_acc).view(
                np.uint32):
            out = Verification(f"{kind} total", 1, 1, 0, st.acc, want_acc)
        return DeviceLoopCheck(kind, expected, st.count, st.status, st.launches, out)

    def _predict(self, feedback, limit, probe, threshold, every: int = 1):
        c = self.chain
        return predict_loop(c.ops, c.x_host, c.y_host, c.scalar, feedback=feedback, limit=limit, probe=probe,
                            threshold=threshold, every=every)

    def run_loop(self, shape: str, limit: int, threshold: float = math.inf, probe: int = 0, *,
                 feedback: bool = False, stamped: bool = False, every: int = 1) -> DeviceLoopCheck:
        """One device-driven loop on fresh inputs, checked: iterations as NumPy predicts, no failed device launch,
        the result bit-exact (with ``feedback``: the chain applied that many times). ``shape``: "self" (the chain
        then dl_relaunch), "scheduler", or "folded" (relu decides; ``every`` = K: a graph of K iterations
        deciding once per K, predicted by predict_loop(every=K))."""
        if shape != "folded" and int(every) != 1:
            raise InvalidArgumentError(f"every (a decision once per K iterations) is for the folded loop, not "
                                       f"{shape!r}")
        if shape == "self":
            exe = self.self_exec(limit, threshold, probe, feedback=feedback, stamped=stamped)
        elif shape == "scheduler":
            exe = self.scheduler_exec(limit, threshold, probe, feedback=feedback, stamped=stamped)
        elif shape == "folded":
            exe = self.folded_exec(limit, threshold, probe, every=every, feedback=feedback, stamped=stamped)
        else:
            raise InvalidArgumentError(f"loop shape must be 'self', 'scheduler' or 'folded', got {shape!r}")
        self.fresh()
        count, acc, want = self._predict(feedback, limit, probe, threshold, int(every))
        name = {"self": "self loop", "scheduler": "scheduler loop", "folded": "self loop, folded"}[shape]
        if shape == "folded" and int(every) > 1:
            name = f"self loop, {every_label(every)}"
        kind = name + (" (feedback)" if feedback else "") + (" until threshold" if probe else "")
        return self._check(kind, exe, count, feedback, want, acc if probe else None)

    def run_launch(self, mode: str, feedback: bool = False) -> DeviceLoopCheck:
        """A host graph whose kernel launches the chain's device graph in ``mode`` ("fire_and_forget", "tail",
        "sibling"): the chain must run once, bit-exact."""
        exe = self.launcher_exec(mode, feedback=feedback)
        self.fresh()
        _count, _acc, want = self._predict(feedback, 1, 0, math.inf)
        chk = self._check(mode.replace("_", "-") + " launch", exe, 1, feedback, want)
        # dl_launch counts no iteration; the chain ran iff the output is right: report one iteration then
        return DeviceLoopCheck(chk.kind, 1, 1 if chk.output.ok else 0, chk.status, chk.launches, chk.output)
