"""Leases of a context: every object that lives in a context keeps that context alive until it is closed.

A module, stream, event, allocation, graph or executable graph belongs to the context it was made in. If that context
were destroyed first, the driver would free those handles itself, and a later ``cuGraphExecDestroy`` or
``cuModuleUnload`` of one of them would reach a handle that no longer exists (seen on an H200: a script that left
``with Device(0)`` with a graph exec open hung at exit; another crashed). So each such object takes a *lease* of its
context when it is made and gives it back when it is closed or collected, after its own handles:

* the primary context (``Device``): the lease is one more ``cuDevicePrimaryCtxRetain``, given back with
  ``cuDevicePrimaryCtxRelease``; the driver's own count keeps the context until its last holder lets go, the
  ``Device`` itself being only one holder (CUDA Driver API, "Primary Context Management");
* a context made with ``cuCtxCreate`` (``CreatedContext``): the driver counts nothing, so the holders are counted
  here and the last one destroys it (``cuCtxDestroy``).

While an object frees its handles, its context is made current on the calling thread if it is not already
(``cuCtxPushCurrent`` ... ``cuCtxPopCurrent``), so closing from another thread, or after another context was made
current, frees the right things. Whatever order objects die in (closed, collected, or left to interpreter exit),
no handle is ever freed after its context.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from ._calls import cu

__all__ = ["ContextLease", "CountedContext", "made_current"]


@contextmanager
def made_current(context) -> Iterator[None]:
    """Make ``context`` current on this thread for the block (push and pop), unless it already is."""
    current = cu("cuCtxGetCurrent")
    if current is not None and int(current) == int(context):
        yield
        return
    cu("cuCtxPushCurrent", context)
    try:
        yield
    finally:
        cu("cuCtxPopCurrent")


class ContextLease:
    """One holder's claim on a context: ``current()`` while freeing, ``give_back()`` once (later calls do nothing).

    Holds the context handle and a function that drops the claim, never the object that holds the lease.
    """

    __slots__ = ("context", "context_now", "_drop", "_lock")

    def __init__(self, context, drop: Callable[[], None], context_now=None):
        self.context = context
        self.context_now = context_now  # what the retain returned (primary contexts), to check it is the same
        self._drop: Callable[[], None] | None = drop
        self._lock = threading.Lock()

    @property
    def held(self) -> bool:
        return self._drop is not None

    def current(self):
        """A context manager making the leased context current (see ``made_current``)."""
        return made_current(self.context)

    def give_back(self) -> None:
        with self._lock:
            drop, self._drop = self._drop, None
        if drop is not None:
            drop()

    @classmethod
    def of_primary(cls, device_handle, context) -> "ContextLease":
        """A lease of a device's primary context: one more retain of it (cuDevicePrimaryCtxRetain)."""
        now = cu("cuDevicePrimaryCtxRetain", device_handle)
        return cls(context, lambda: cu("cuDevicePrimaryCtxRelease", device_handle), now)


class CountedContext:
    """The holders of a context made with cuCtxCreate, counted here; the last one to let go destroys it."""

    __slots__ = ("context", "_holders", "_lock")

    def __init__(self, context):
        self.context = context
        self._holders = 1  # whoever made it
        self._lock = threading.Lock()

    @property
    def holders(self) -> int:
        return self._holders

    def lease(self) -> ContextLease:
        with self._lock:
            if self._holders == 0:
                raise RuntimeError("the context is destroyed: nothing can be made in it")
            self._holders += 1
        return ContextLease(self.context, self.drop)

    def drop(self) -> None:
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            cu("cuCtxDestroy", self.context)
