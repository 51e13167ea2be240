"""Which device is current on this thread: the arch a compile defaults to, the Device a wrapped stream or array
belongs to. Asks the driver without initialising it (no cuInit): with no driver, or no context current, the
answer is None.

Driver API: cuCtxGetCurrent, cuCtxGetDevice, cuDeviceGetAttribute (CUDA Driver API, "Context Management").
"""
from __future__ import annotations

import weakref

from ._calls import cu, driver_fn, driver_module

__all__ = ["current_compute_capability", "current_device", "register_device"]


def _attr(name: str):
    return getattr(driver_module().CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name)


def _current_context_and_device():
    """(CUcontext, CUdevice) current on this thread, or None: no driver, cuInit not run, or no context current.
    Never raises and never calls cuInit (asking must not initialise the driver)."""
    try:
        r = driver_fn("cuCtxGetCurrent")()
        if r[0] != 0 or r[1] is None or not int(r[1]):
            return None
        dev = driver_fn("cuCtxGetDevice")()
        if dev[0] != 0:
            return None
        return r[1], dev[1]
    except Exception:  # no driver library (cuda.pathfinder raises), or no bindings for it
        return None


def current_compute_capability() -> tuple[int, int] | None:
    """(major, minor) of the device whose context is current on this thread, or None when no context is current
    (nothing made yet, or no GPU). Driver API: cuCtxGetCurrent, cuCtxGetDevice, cuDeviceGetAttribute."""
    found = _current_context_and_device()
    if found is None:
        return None
    try:
        return (cu("cuDeviceGetAttribute", _attr("COMPUTE_CAPABILITY_MAJOR"), found[1]),
                cu("cuDeviceGetAttribute", _attr("COMPUTE_CAPABILITY_MINOR"), found[1]))
    except Exception:
        return None


#: Devices (and CreatedContexts) made in this process, weakly, to find an open one whose context is current.
_made_devices: "weakref.WeakSet" = weakref.WeakSet()


def register_device(dev) -> None:
    """Remember ``dev`` (weakly) for ``current_device``."""
    _made_devices.add(dev)


def current_device():
    """The open cugraphlab ``Device`` whose context is current on this thread, or None (none made, or the current
    context is someone else's). Wrapped streams and arrays default to it."""
    found = _current_context_and_device()
    if found is None:
        return None
    ctx = int(found[0])
    for dev in list(_made_devices):
        if not dev.closed and int(getattr(dev, "context", 0) or 0) == ctx:
            return dev
    return None


