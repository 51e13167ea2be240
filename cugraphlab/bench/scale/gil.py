"""Does the binding release the GIL around the driver call? A pure-Python busy thread beside a launching thread.

Three phases of ``seconds`` each, in one spawned process: the busy thread alone (it counts loop iterations, touching
nothing but ``perf_counter_ns``), the launching thread alone (cuLaunchKernel of the empty kernel, one block of 32
threads, arguments packed once), then both at once. If the binding held the GIL during the driver call, the two
threads would take turns on one interpreter and their shares would add up to about 1; if it releases it, the busy
thread runs while the launching thread is inside libcuda and keeps most of its rate. ``gil_verdict`` reads that.
"""
from __future__ import annotations

import sys
import threading
import time

__all__ = ["gil_probe_main", "gil_verdict", "RELEASE_THRESHOLD", "TURNS_MARGIN"]

RELEASE_THRESHOLD = 0.7  # busy thread keeps at least this share of its rate: the call runs without the GIL
TURNS_MARGIN = 0.15  # shares adding up to at most 1 + this: the threads take turns (the GIL is held)
CONVOY_SLICES = 3  # launches per switch interval at most: the launcher waits a full slice for the GIL after each call


def _busy(stop_ns: int, out: list, start: threading.Barrier | None) -> None:
    perf = time.perf_counter_ns
    if start is not None:
        start.wait()
    t0 = perf()
    n = 0
    while perf() < stop_ns:
        n += 1
    out.append((n, perf() - t0))


def _launcher(launch, stream, stop_ns: int, out: list, start: threading.Barrier | None, device) -> None:
    from ...core.errors import check

    device.make_current()
    fn, c = launch.fn, launch.call_args
    perf = time.perf_counter_ns
    if start is not None:
        start.wait()
    t0 = perf()
    n = 0
    while perf() < stop_ns:  # checked at every launch, like the busy loop: no launches counted after the stop
        r = fn(*c)
        if r[0]:
            check(r, "cuLaunchKernel")
        n += 1
    elapsed = perf() - t0
    stream.synchronize()
    out.append((n, elapsed))


def _rate(pair) -> float:
    n, ns = pair
    return n / max(ns, 1) * 1e9


def gil_probe_main(*, device: int = 0, seconds: float = 0.5) -> dict:
    """Run the three phases on ``device``; returns rates (per second) and the environment record of the device.

    Keys: ``busy_alone``, ``busy_beside`` (loop iterations/s), ``launch_alone``, ``launch_beside`` (launches/s),
    ``us_per_launch_alone``, ``seconds``, ``switch_interval_s``, ``env``. Driver calls: cuLaunchKernel (the loop),
    cuStreamSynchronize, plus the set-up of a Device, its kernels and a stream.
    """
    from ...core.device import Device
    from ...core.launch import Launch, LaunchConfig, PackedArgs
    from ..records.environment import collect

    ns = int(seconds * 1e9)
    with Device(device) as dev:
        try:
            env = collect(dev)
        except Exception as e:  # the measurement must not be lost to an environment query
            env = {"error": f"{type(e).__name__}: {e}"}
        with dev.load_kernels(names=["empty"]) as ks, dev.create_stream() as stream:
            launch = Launch(ks["empty"], PackedArgs((), ()), LaunchConfig(1, 32), stream)
            warm: list = []
            _launcher(launch, stream, time.perf_counter_ns() + ns // 5, warm, None, dev)

            busy_alone: list = []
            _busy(time.perf_counter_ns() + ns, busy_alone, None)

            launch_alone: list = []
            t = threading.Thread(target=_launcher, args=(launch, stream, time.perf_counter_ns() + ns, launch_alone,
                                                         None, dev))
            t.start()
            t.join()

            busy_beside: list = []
            launch_beside: list = []
            start = threading.Barrier(2)
            stop = time.perf_counter_ns() + ns + 50_000_000  # both start within a few ms of the barrier
            t = threading.Thread(target=_launcher, args=(launch, stream, stop, launch_beside, start, dev))
            t.start()
            _busy(stop, busy_beside, start)
            t.join()
    if not (busy_alone and busy_beside and launch_alone and launch_beside):
        raise RuntimeError("a phase of the GIL probe did not finish")
    return {
        "switch_interval_s": sys.getswitchinterval(),
        "busy_alone": _rate(busy_alone[0]),
        "busy_beside": _rate(busy_beside[0]),
        "launch_alone": _rate(launch_alone[0]),
        "launch_beside": _rate(launch_beside[0]),
        "us_per_launch_alone": 1e6 / _rate(launch_alone[0]),
        "seconds": seconds,
        "device": device,
        "env": env,
    }


def gil_verdict(gil: dict) -> dict:
    """From the probe's rates: ``busy_kept``, ``launch_kept`` (shares of the rates alone), ``released`` (True,
    False or None when unclear) and a sentence computed from those numbers."""
    busy = gil["busy_beside"] / gil["busy_alone"] if gil.get("busy_alone") else None
    launch = gil["launch_beside"] / gil["launch_alone"] if gil.get("launch_alone") else None
    if busy is None or launch is None:
        return {"busy_kept": busy, "launch_kept": launch, "released": None, "text": "the GIL probe did not run"}
    pct = f"the busy Python thread kept {busy:.0%} of its rate beside a launching thread, which kept {launch:.0%}"
    switch = gil.get("switch_interval_s") or 0.005  # CPython's default when the record does not say
    if gil["launch_beside"] <= CONVOY_SLICES / switch:
        # Held through the call, the launcher would keep about half its rate (the two would alternate slices).
        # About one launch per switch interval means it gave the GIL up at every call and then waited a whole slice
        # of the busy thread to get it back: the binding releases the GIL, and the busy thread starves the launcher.
        released = True
        text = (f"{pct}: about one launch per {switch * 1e3:g} ms switch interval ({gil['launch_beside']:,.0f}/s): the "
                "binding releases the GIL at every driver call and the launching thread then waits a whole slice of "
                "the busy thread to take it back, so any busy Python thread beside a launching one nearly stops it")
    elif busy >= RELEASE_THRESHOLD:
        released = True
        text = (f"{pct}: the binding releases the GIL around the driver call (the busy thread runs while the "
                "other is inside libcuda)")
        if launch < 0.5:
            text += ("; the launching thread then waits to get the GIL back after each call, so one Python thread "
                     "beside it slows launching")
    elif busy + launch <= 1.0 + TURNS_MARGIN:
        released = False
        text = (f"{pct}: the two take turns on one interpreter, as if the GIL were held through the call; "
                "in one process, launching threads cannot overlap")
    else:
        released = None
        text = f"{pct}: neither clearly releases nor clearly holds the GIL"
    return {"busy_kept": busy, "launch_kept": launch, "released": released, "text": text}
