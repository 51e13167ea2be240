"""Contexts of one's own: ``cuCtxCreate`` instead of the device's primary context.

A ``Device`` retains the device's *primary* context (``cuDevicePrimaryCtxRetain``), the one the CUDA runtime and every
library share; it is destroyed when its last holder releases it, so closing every Device and opening a new one gives
a fresh primary context (``primary_context_active`` says whether someone else still holds it). A
``CreatedContext`` is a context of its own, made with scheduling flags:

    ctx = CreatedContext(0, "spin")   # cuCtxCreate(CU_CTX_SCHED_SPIN, dev): current on this thread (pushed)
    ...                               # every factory of Device works (arrays, streams, modules) in this context
    ctx.close()                       # cuCtxDestroy once nothing made in it is left open (core/lease.py)

Scheduling flags say how a thread waiting on the GPU (a synchronize) waits: ``auto`` (the driver chooses: spin while
there are fewer active contexts than cores, else yield), ``spin``, ``yield``, ``blocking_sync`` (sleep on an OS
primitive). CUDA Driver API, "Context Management" and "Primary Context Management".
"""
from __future__ import annotations

from ._calls import ctx_create, cu, driver_module
from .current import register_device
from .device import Device, device_count, init
from .errors import InvalidArgumentError, NoDeviceError
from .lease import CountedContext

__all__ = ["CreatedContext", "SCHED_FLAGS", "sched_flag", "primary_context_active"]

#: Short names of the CU_CTX_SCHED_* flags.
SCHED_FLAGS = {"auto": "CU_CTX_SCHED_AUTO", "spin": "CU_CTX_SCHED_SPIN", "yield": "CU_CTX_SCHED_YIELD",
               "blocking_sync": "CU_CTX_SCHED_BLOCKING_SYNC"}


def sched_flag(name: str) -> int:
    """The CU_CTX_SCHED_* value for a short name ("auto", "spin", "yield", "blocking_sync")."""
    if name not in SCHED_FLAGS:
        raise InvalidArgumentError(f"unknown context scheduling {name!r}; known: {', '.join(SCHED_FLAGS)}")
    return int(getattr(driver_module().CUctx_flags, SCHED_FLAGS[name]))


def primary_context_active(ordinal: int = 0) -> bool:
    """Whether the primary context of device ``ordinal`` exists now (cuDevicePrimaryCtxGetState's ``active``):
    after every holder released it, False; a library that keeps it (the CUDA runtime does) makes it True."""
    init()
    flags, active = cu("cuDevicePrimaryCtxGetState", cu("cuDeviceGet", ordinal))
    return bool(active)


class CreatedContext(Device):
    """A context made with ``cuCtxCreate`` on device ``ordinal`` with scheduling ``sched``; a Device in every other
    respect (same queries and factories). ``close()`` destroys it (cuCtxDestroy) once every object made in it is
    closed too: the holders are counted (core/lease.py ``CountedContext``), the last one destroys it."""

    def __init__(self, ordinal: int = 0, sched: str = "auto"):  # no super().__init__: it would retain the primary
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 0:
            raise InvalidArgumentError(f"device index must be an integer >= 0, got {ordinal!r}")
        flags = sched_flag(sched)
        init()
        count = device_count()
        if ordinal >= count:
            raise NoDeviceError(f"there is no CUDA device {ordinal}: this machine has {count}")
        self.ordinal, self.sched = ordinal, sched
        self.handle = cu("cuDeviceGet", ordinal)
        self.context = ctx_create(flags, self.handle)
        self._holders = CountedContext(self.context)
        self._own(self._holders.drop)  # a bound method of the counter, not of this object
        try:
            self._read_properties()  # Device's, on this context (cuCtxCreate made it current)
        except BaseException:
            self.close()
            raise
        register_device(self)

    def lease_context(self):
        """A lease of this context for an object made in it: counted, the last holder destroys the context."""
        self.require_open()
        return self._holders.lease()

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.describe()
        return f"<CreatedContext {self.ordinal} ({self.sched}): {state}>"
