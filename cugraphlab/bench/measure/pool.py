"""Worker processes kept for a whole session (the pytest plugin's): N fresh processes, each request sent to every
one of them in turn, never to two at once.

``bench.workers.run_workers`` starts a process per call, which costs a second or two (an interpreter, NumPy,
cuda.bindings, ``cuInit``, a context). A test suite measuring many tests with the process as the unit would pay
that per test and per process; a pool pays it once per process per session. Each worker opens its device once
and keeps it (and so its context) for every request; the requests of one session therefore sample the same N
processes, and two sessions sample different ones, which is what a comparison between two runs needs.

    pool = WorkerPool(6)                        # 6 spawned processes, started now
    replies = pool.run(spec, options, 60)       # worker 0, then 1, ... each runs target(spec, options, device)
    pool.close()

A worker's start-up (an interpreter, imports, ``cuInit``, its context) is not charged to a request: each worker
says when it is ready, and ``run`` waits for that (``start_timeout_s``, 120 s by default: six workers starting on
a busy two-core machine take many seconds) before the request's own ``timeout_s`` begins. A worker that does not
answer within the timeout is killed and replaced (its reply says so); one that died is replaced too. Replies are plain dicts (``run.measure_spec``'s: ``{"part", "env", "config"}`` or ``{"error"}``).
"""
from __future__ import annotations

import multiprocessing
from typing import Callable

from ...core.errors import positive_int

__all__ = ["WorkerPool", "READY", "START_TIMEOUT_S"]

READY = {"ready": True}  # a worker's first message: it is up, its device open (or its reason why not at hand)
START_TIMEOUT_S = 120.0


def _serve(conn, target: Callable, device_ordinal: int | None) -> None:
    """A worker's loop: open the device once (if asked), then answer (spec, options) requests until None."""
    device = None
    try:
        if device_ordinal is not None:
            try:
                from ...core.device import Device

                device = Device(device_ordinal)
            except Exception as e:  # answer every request with why (no traceback: the parent says it in a line)
                from ...core.errors import NoDeviceError

                reason = {"error": f"{e}", "class": "NoDeviceError" if isinstance(e, NoDeviceError) else ""}
                conn.send(READY)
                while conn.recv() is not None:
                    conn.send(reason)
                return
        conn.send(READY)  # started: what follows is the requests' time
        while True:
            request = conn.recv()
            if request is None:
                return
            spec, options = request
            conn.send(target(spec, options, device) if device is not None else target(spec, options))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        return
    finally:
        if device is not None:
            try:
                device.close()
            except Exception:
                pass


class WorkerPool:
    """``n`` spawned workers running ``target(spec, options[, device])`` on request (module docstring).
    ``device``: the ordinal each worker opens once (None: the target opens what it needs)."""

    def __init__(self, n: int, target: Callable | None = None, device: int | None = 0,
                 start_timeout_s: float = START_TIMEOUT_S):
        from .processes import measure_spec

        self.n = positive_int("processes", n)
        self.target = target or measure_spec
        self.device = device
        self.start_timeout_s = float(start_timeout_s)
        self._ctx = multiprocessing.get_context("spawn")
        self.ready = [False] * self.n
        self.workers: list = [self._start(i) for i in range(self.n)]
        self.replaced = 0

    def _start(self, i: int):
        parent, child = self._ctx.Pipe()
        p = self._ctx.Process(target=_serve, args=(child, self.target, self.device), daemon=True,
                              name=f"cugraphlab-measure-{i}")
        p.start()
        child.close()
        return p, parent

    def _replace(self, i: int) -> None:
        p, conn = self.workers[i]
        for stop in (p.terminate, p.kill):
            if p.is_alive():
                stop()
                p.join(2.0)
        conn.close()
        self.workers[i] = self._start(i)
        self.ready[i] = False
        self.replaced += 1

    def _wait_ready(self, i: int) -> dict | None:
        """Wait for worker ``i`` to be up (not counted in any request's timeout); None, or the reply saying why
        it never came up (the worker is replaced)."""
        if self.ready[i]:
            return None
        p, conn = self.workers[i]
        try:
            if conn.poll(self.start_timeout_s):
                conn.recv()
                self.ready[i] = True
                return None
            reply = {"error": f"process {i + 1} did not start within {self.start_timeout_s:g} s", "class": ""}
        except (EOFError, BrokenPipeError, OSError):
            p.join(1.0)
            reply = {"error": f"process {i + 1} exited (code {p.exitcode}) while starting", "class": ""}
        self._replace(i)
        return reply

    def run(self, spec: dict, options, timeout_s: float) -> list[dict]:
        """One reply per worker, asked one after the other; the first worker's calibrated calls per sample are
        used by the others. ``options``: a MeasureOptions or a dict of its fields (checked here first)."""
        from .options import MeasureOptions

        options = MeasureOptions.coerce(options).to_dict()
        replies = []
        for i in range(self.n):
            failed = self._wait_ready(i)
            if failed is not None:
                replies.append(failed)
                break
            p, conn = self.workers[i]
            try:
                conn.send((spec, options))
                if conn.poll(timeout_s):
                    reply = conn.recv()
                else:
                    reply = {"error": f"process {i + 1} timed out after {timeout_s:g} s", "class": ""}
                    self._replace(i)
            except (EOFError, BrokenPipeError, OSError):
                p.join(1.0)
                reply = {"error": f"process {i + 1} exited (code {p.exitcode}) before answering", "class": ""}
                self._replace(i)
            replies.append(reply)
            if "error" in reply:
                break
            if options.get("calls") is None:
                options["calls"] = reply["part"]["calls"]
        return replies

    def close(self) -> None:
        for p, conn in self.workers:
            try:
                conn.send(None)
            except Exception:
                pass
        for p, conn in self.workers:
            p.join(5.0)
            if p.is_alive():
                p.terminate()
                p.join(2.0)
            conn.close()
        self.workers = []

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
