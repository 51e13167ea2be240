"""The native rows of ``cugraphlab latency``: the same launch and the same graph called from a C loop.

``bench.native.loops`` builds (or loads from the cache) a few lines of C that call the driver's own ``cuLaunchKernel`` and
``cuGraphLaunch`` in a loop, timed with ``CLOCK_MONOTONIC`` inside C. Here they run on the very objects the Python
rows use (same cubin, CUfunction, packed kernelParams, stream; same CUgraphExec), in the same process and context:

    floor, why = open_native_floor()          # None and the reason where no C compiler exists
    c = floor.launch_loop(empty_launch)       # cuLaunchKernel x K in C
    sample = c_per_call(c, K, sync)           # µs per call, the stream drained after each block (untimed)
    extra = paired_excess(empty_launch, c, K, sync)
        # one sample: Python's K calls, drain, C's K calls, drain; returns Python minus C per call

so "C: X µs, Python adds Y µs per launch" comes from pairs taken back to back, not from two rows measured apart.

Beside them, the same launch through ``core.native_launch`` (``Launch.native().fire()``: a Python call landing in C,
calling the C floor's own cuLaunchKernel entry point), alone and paired with the C loop the same way:

    native, why = open_native_launch(empty_launch, floor)   # None and the reason where it cannot be built
    extra = paired_excess(native.fire, c, K, sync)          # what the native Python call adds per launch
"""
from __future__ import annotations

import time
from typing import Callable

from ...core.errors import CugraphlabError, NoDeviceError, UnsupportedError

__all__ = ["C_ROWS", "PAIRED_ROWS", "NATIVE_ROWS", "open_native_floor", "open_native_launch", "c_per_call", "paired_excess", "native_summary"]

#: key -> what, for the rows the C loops give (the same text whether measured or not).
C_ROWS = {
    "c_launch_empty": "C cuLaunchKernel, empty kernel (native floor, timed in C)",
    "c_graph_launch": "C cuGraphLaunch, chain graph (native floor, timed in C)",
}
#: key -> what, for the paired differences.
PAIRED_ROWS = {
    "py_adds_launch": "Python adds per cuLaunchKernel (Launch() minus C, paired)",
    "py_adds_graph": "Python adds per cuGraphLaunch (GraphExec.launch minus C, paired)",
}


#: key -> what, for the rows of the native launch (core.native_launch).
NATIVE_ROWS = {
    "native_launch_empty": "cugraphlab Launch.native().fire(), empty kernel (Python call into C)",
    "native_adds_launch": "native fire() adds per cuLaunchKernel (minus C, paired)",
}


def open_native_launch(launch, floor) -> tuple[object | None, str]:
    """(a core.native_launch.NativeLaunch of ``launch`` calling the floor's own cuLaunchKernel entry point, "") or
    (None, why not). The caller closes it."""
    entry = (getattr(floor, "entry", None) or {}).get("cuLaunchKernel")
    if entry is None:
        return None, "the C floor gives no cuLaunchKernel entry point"
    try:
        from ...core.native_launch import NativeLaunch

        return NativeLaunch(launch, launch_kernel=entry), ""
    except (UnsupportedError, NoDeviceError) as e:
        return None, str(e).splitlines()[0]
    except CugraphlabError as e:
        return None, f"the native launch did not build: {str(e).splitlines()[0]}"


def open_native_floor(factory: Callable[[], object] | None = None) -> tuple[object | None, str]:
    """(the process's NativeFloor, "") or (None, why not): no C compiler (UnsupportedError), the compiler refused
    the source, or no libcuda to take entry points from. ``factory`` replaces ``bench.native.loops.native_floor``."""
    if factory is None:
        from ..native.loops import native_floor as factory
    try:
        return factory(), ""
    except (UnsupportedError, NoDeviceError) as e:
        return None, str(e).splitlines()[0]
    except CugraphlabError as e:  # NativeCompileError: say so in the row, keep the rest of the table
        return None, f"the C loop did not build: {str(e).splitlines()[0]}"


def c_per_call(loop: Callable[[int], int], k: int, after: Callable[[], object] | None = None) -> Callable[[], float]:
    """A sample function: µs per call of a C loop ``loop(k) -> ns`` (its own CLOCK_MONOTONIC); ``after`` untimed."""

    def sample() -> float:
        ns = loop(k)
        if after is not None:
            after()
        return ns / 1e3 / k

    return sample


def paired_excess(py_call: Callable[[], object], c_loop: Callable[[int], int], k: int,
                  sync: Callable[[], object], clock: Callable[[], int] = time.perf_counter_ns) -> Callable[[], float]:
    """A sample function: (Python's µs per call) - (C's µs per call) over ``k`` calls each, back to back.

    Order inside one sample: drain, Python ``k`` calls between two ``clock()`` reads, drain, C ``k`` calls (timed in
    C), drain. Both halves see the same queue state (empty at the start) and the same clocks of the GPU."""

    def sample() -> float:
        sync()
        t0 = clock()
        for _ in range(k):
            py_call()
        t1 = clock()
        sync()
        ns = c_loop(k)
        sync()
        return (t1 - t0) / 1e3 / k - ns / 1e3 / k

    return sample


def native_summary(medians: dict[str, float]) -> dict:
    """The decomposition entries of the native rows from row medians (absent rows: None)."""
    def get(key):
        return medians.get(key)

    return {"c_launch_us": get("c_launch_empty"), "python_adds_launch_us": get("py_adds_launch"),
            "c_graph_launch_us": get("c_graph_launch"), "python_adds_graph_us": get("py_adds_graph"),
            "native_launch_us": get("native_launch_empty"), "native_adds_launch_us": get("native_adds_launch")}
