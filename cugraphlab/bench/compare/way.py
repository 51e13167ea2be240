"""What every stack provides, and the one measuring loop all stacks share.

A stack module (``bench/compare/stacks/<key>.py``) imports its library only inside ``open_stack(...)``, which returns a
``Stack`` or raises ``StackUnavailable(reason)``. A ``Stack`` gives, per size, one or more ``Way`` objects (e.g.
Triton's ``kern[grid]`` call and its compiled launcher). A ``Way`` owns its buffers and stream and offers, per mode,
a function that ENQUEUES ``k`` repetitions and does not wait:

* ``launch``: ``k`` launches of ``add`` (out0 = x + y); checked against NumPy's x + y;
* ``eager``: ``k`` iterations of the chain, one library call (one kernel) per op;
* ``graph``: ``k`` launches of a graph holding one chain iteration, made with the stack's graph API;
* ``fused``: ``k`` iterations of a one-kernel form of the chain.

``measure_mode`` times a mode like the rest of cugraphlab: warm-up, then per repeat fresh inputs (the same seed in
every stack's process), poisoned outputs, an untimed lead-in, one timed loop (wall clock: ``perf_counter_ns`` from
before the first launch until the end event's synchronize returns; device clock: events on the way's own stream),
and a bit-exact comparison with NumPy.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["MODES", "StackUnavailable", "Way", "Stack", "ModeResult", "measure_mode", "short_error", "import_error"]

MODES = ("launch", "eager", "graph", "fused")
POISON_BITS = 0x7FC0DEAD  # same as cugraphlab.core.memory.POISON_BITS (a quiet NaN; kept here to import nothing)


class StackUnavailable(Exception):
    """The stack cannot run here; the message is the reason shown in its row ("not installed", ...)."""


def short_error(e: BaseException, limit: int = 200) -> str:
    """``Type: message`` on one line, cut to ``limit`` characters; cugraphlab's own errors by their message alone
    (it says what happened and what to do; the class name would only repeat it)."""
    from ...core.errors import CugraphlabError

    text = str(e) if isinstance(e, CugraphlabError) and str(e) else f"{type(e).__name__}: {e}"
    text = text.replace("\n", " ").strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def import_error(e: BaseException, top: str) -> StackUnavailable:
    """StackUnavailable for an import that failed: "not installed" when ``top`` itself is missing."""
    if isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] == top:
        return StackUnavailable(f"not installed ({top})")
    return StackUnavailable(f"import failed: {short_error(e)}")


class Way:
    """One way of launching at one size. Subclasses fill ``runners`` and ``unsupported`` and the hooks below.

    ``runners[mode]`` is a callable ``run(k)`` that enqueues ``k`` repetitions; ``unsupported[mode]`` says why a
    mode has no runner ("no graph API"); ``notes[mode]`` is shown in the row; ``kernels[mode]`` is kernels per
    repetition; ``same_cubin`` says the kernels are cugraphlab's own NVRTC cubin.
    """

    way = ""
    same_cubin = False
    device_clock = "CUDA events on the way's own stream"

    def __init__(self) -> None:
        self.runners: dict[str, Callable[[int], None]] = {}
        self.unsupported: dict[str, str] = {}
        self.notes: dict[str, str] = {}
        self.kernels: dict[str, int] = {}

    # data ------------------------------------------------------------------------------------------------------
    def set_inputs(self, x: np.ndarray, y: np.ndarray) -> None:
        raise NotImplementedError

    def poison(self) -> None:
        """Fill every output with POISON_BITS (a way whose outputs are new arrays per call does nothing)."""
        raise NotImplementedError

    def result(self, mode: str) -> np.ndarray:
        """The output ``mode`` wrote last (``launch``: add's output), on the host; waits for it."""
        raise NotImplementedError

    # timing: by default the way's ``stream`` and its two events ``start`` and ``end`` (every library's events
    # have record(stream) and synchronize()); a way without them overrides these -------------------------------------
    def synchronize(self) -> None:
        self.stream.synchronize()

    def record_start(self) -> None:
        self.start.record(self.stream)

    def record_end(self) -> None:
        self.end.record(self.stream)

    def wait_end(self) -> None:
        """Block until the end event (or the last output) is complete."""
        self.end.synchronize()

    def elapsed_ms(self) -> float | None:
        """Device milliseconds between the two events, or None where the stack has no events."""
        raise NotImplementedError

    def prepare(self, mode: str) -> None:
        """One-time work before a mode is timed (graph capture); default: nothing."""

    def timed(self, run: Callable[[int], None], k: int) -> tuple[float, float | None]:
        """(wall µs, device µs or None) per repetition of one loop of ``k``."""
        self.synchronize()
        t0 = time.perf_counter_ns()
        self.record_start()
        run(k)
        self.record_end()
        self.wait_end()
        t1 = time.perf_counter_ns()
        ms = self.elapsed_ms()
        return (t1 - t0) / 1e3 / k, (None if ms is None else ms * 1e3 / k)

    def close(self) -> None:
        """Free what the way holds (default: nothing; the library's garbage collection does it)."""


class Stack:
    """One library, opened in this process. ``ways(n, ops, scalar)`` builds the ways at size ``n``."""

    name = ""
    versions: dict = {}

    def ways(self, n: int, ops: tuple[str, ...], scalar: float) -> list[Way]:
        raise NotImplementedError

    def close(self) -> None:
        pass


@dataclass
class ModeResult:
    """Samples of one mode of one way: µs per repetition on each clock, and the bit comparison."""

    wall: list[float] = field(default_factory=list)
    device: list[float] = field(default_factory=list)
    mismatches: int = 0
    checked: int = 0


def _bad_count(got: np.ndarray, expected: np.ndarray) -> int:
    got = np.ascontiguousarray(got, dtype=np.float32).reshape(-1)
    if got.size != expected.size:
        return int(expected.size)
    return int(np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32)))


def measure_mode(way: Way, mode: str, k: int, repeats: int, warm: int, inputs: list[tuple[np.ndarray, np.ndarray]],
                 expected: list[np.ndarray]) -> ModeResult:
    """Time ``mode`` of ``way``: ``repeats`` loops of ``k`` repetitions, each on ``inputs[r]`` checked against
    ``expected[r]`` bit for bit.

    Before timing: one-time preparation (graph capture), inputs set, outputs poisoned and a warm-up of ``warm``
    repetitions (compiles kernels, uploads graphs, raises the clocks). Each repeat: fresh inputs, poisoned outputs,
    an untimed lead-in of ``min(warm, k)``, the timed loop, the comparison.
    """
    run = way.runners[mode]
    x0, y0 = inputs[0]
    way.set_inputs(x0, y0)
    way.poison()
    way.prepare(mode)
    run(max(1, warm))
    way.synchronize()
    out = ModeResult()
    for r in range(repeats):
        x, y = inputs[r % len(inputs)]
        way.set_inputs(x, y)
        way.poison()
        run(max(1, min(warm, k)))
        wall, dev = way.timed(run, k)
        out.wall.append(wall)
        if dev is not None:
            out.device.append(dev)
        out.mismatches += _bad_count(way.result(mode), expected[r % len(expected)])
        out.checked += 1
    return out
