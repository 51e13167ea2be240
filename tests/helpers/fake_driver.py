"""A stand-in for cuda.bindings.driver that runs on a machine without a GPU and keeps a ledger of every handle.

Functions return what the bindings return, ``(CUresult, *values)``; handles are plain ints; every type, enum and
constant not faked here comes from the real module. The ledger says which handles were made and how often each was
released, so a test can prove that every handle of a forgotten object was freed, exactly once.

Contexts behave as the driver's do: a primary context is made by its first retain and destroyed by its last release
(a ``cuCtxCreate``'d one by ``cuCtxDestroy``); every handle remembers the context it was made in, and a handle
released after its context was destroyed is recorded in ``after_context`` (the driver freed it with the context:
releasing it then reaches freed memory, the hang and crash of issue 30). Install it with the ``fake_driver`` fixture
(conftest.py), which also resets cugraphlab's once-per-process cuInit.
"""
from __future__ import annotations

import ctypes
import itertools
import threading
from collections import Counter

from cuda.bindings import driver as _real

OK = _real.CUresult.CUDA_SUCCESS
_ATTRIBUTES = {"COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0, "MULTIPROCESSOR_COUNT": 132}


class FakeDriver:
    """The driver calls cugraphlab makes for chains, graphs and their owners, with a handle ledger."""

    def __init__(self, driver_version: int = 13000, device_count: int = 1):
        self._ids = itertools.count(0x1000, 0x100)
        self.made: dict[int, str] = {}  # handle -> kind
        self.released: Counter = Counter()
        self.version = driver_version
        self.count = device_count
        self._host = {}  # page-locked host memory stand-ins, kept alive by address
        self._primary: dict[int, list] = {}  # device ordinal -> [context, retains]
        self.context_of: dict[int, int | None] = {}  # handle -> the context current when it was made
        self.destroyed_contexts: set[int] = set()
        self.after_context: list[tuple[int, str]] = []  # (handle, kind) released after its context was destroyed
        self._thread = threading.local()  # .stack: this thread's context stack (top = current)

    def __getattr__(self, name):
        """Types, enums and constants: the real module's; the 12.x names of the 13 call forms: the fake's own."""
        base, _, version = name.rpartition("_v")
        if base.startswith("cu") and version.isdigit() and hasattr(type(self), base):
            # cuda-bindings 12 spells the 13 form cuXxx_v2/_v3 (core/_compat.py's table); the fakes implement the 13
            # form under the plain name, with the same arguments and results
            return getattr(self, base)
        return getattr(_real, name)

    # --- the ledger -------------------------------------------------------------------------------------------
    def _make(self, kind: str) -> int:
        h = next(self._ids)
        self.made[h] = kind
        if kind != "context":
            self.context_of[h] = self._context_now()
        return h

    def _release(self, h, kind: str):
        h = int(h)
        if self.made.get(h) != kind:
            return (_real.CUresult.CUDA_ERROR_INVALID_HANDLE,)
        if self.context_of.get(h) in self.destroyed_contexts:
            self.after_context.append((h, kind))
            return (_real.CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,)
        self.released[h] += 1
        return (OK,)

    def _stack(self) -> list:
        stack = getattr(self._thread, "stack", None)
        if stack is None:
            stack = self._thread.stack = []
        return stack

    def _context_now(self):
        """The context current on this thread; where none was made current, the one live context (if one)."""
        stack = self._stack()
        if stack and stack[-1]:
            return int(stack[-1])
        live = self.live("context")
        return live[-1] if len(live) == 1 else None

    def _destroy_context(self, ctx: int) -> None:
        self.released[ctx] += 1
        self.destroyed_contexts.add(ctx)
        stack = self._stack()
        stack[:] = [c for c in stack if c != ctx]

    def live(self, kind: str | None = None) -> list[int]:
        """Handles made and never released (of one kind)."""
        return [h for h, k in self.made.items() if self.released[h] == 0 and (kind is None or k == kind)]

    def released_twice(self) -> list[int]:
        return [h for h, n in self.released.items() if n > 1]

    # --- init, devices, contexts ------------------------------------------------------------------------------
    def cuInit(self, flags):
        return (OK,)

    def cuDriverGetVersion(self):
        return (OK, self.version)

    def cuDeviceGetCount(self):
        return (OK, self.count)

    def cuDeviceGet(self, ordinal):
        return (OK, int(ordinal))

    def cuDevicePrimaryCtxRetain(self, dev):
        entry = self._primary.get(int(dev))
        if entry is None or entry[1] == 0:
            entry = self._primary[int(dev)] = [self._make("context"), 0]
        entry[1] += 1
        return (OK, entry[0])

    def cuDevicePrimaryCtxRelease(self, dev):
        entry = self._primary.get(int(dev))
        if entry is None or entry[1] == 0:
            return (_real.CUresult.CUDA_ERROR_INVALID_CONTEXT,)
        entry[1] -= 1
        if entry[1] == 0:
            self._destroy_context(entry[0])
        return (OK,)

    def primary_retains(self, dev: int = 0) -> int:
        """How many retains device ``dev``'s primary context has now (0: it does not exist)."""
        entry = self._primary.get(dev)
        return entry[1] if entry else 0

    def cuCtxCreate(self, *args):  # 13: (params, flags, dev); 12: (flags, dev)
        ctx = self._make("context")
        self._stack().append(ctx)
        return (OK, ctx)

    def cuCtxDestroy(self, ctx):
        if self.made.get(int(ctx)) != "context" or int(ctx) in self.destroyed_contexts:
            return (_real.CUresult.CUDA_ERROR_INVALID_CONTEXT,)
        self._destroy_context(int(ctx))
        return (OK,)

    def cuCtxSetCurrent(self, ctx):
        stack = self._stack()
        if stack:
            stack[-1] = int(ctx)
        else:
            stack.append(int(ctx))
        return (OK,)

    def cuCtxGetCurrent(self):
        stack = self._stack()
        return (OK, _real.CUcontext(stack[-1]) if stack else _real.CUcontext(0))

    def cuCtxPushCurrent(self, ctx):
        if int(ctx) in self.destroyed_contexts:
            return (_real.CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,)
        self._stack().append(int(ctx))
        return (OK,)

    def cuCtxPopCurrent(self):
        stack = self._stack()
        return (OK, _real.CUcontext(stack.pop())) if stack else (_real.CUresult.CUDA_ERROR_INVALID_CONTEXT, None)

    def cuCtxSynchronize(self):
        return (OK,)

    def cuDeviceGetName(self, size, dev):
        return (OK, b"Fake GPU\0")

    def cuDeviceGetAttribute(self, attr, dev):
        return (OK, _ATTRIBUTES.get(attr.name.replace("CU_DEVICE_ATTRIBUTE_", ""), 1))

    def cuDeviceTotalMem(self, dev):
        return (OK, 1 << 34)

    def cuMemGetInfo(self):
        return (OK, 1 << 33, 1 << 34)

    # --- memory, streams, events --------------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes):
        return (OK, self._make("memory"))

    def cuMemFree(self, h):
        return self._release(h, "memory")

    def cuMemAllocHost(self, nbytes):
        buf = ctypes.create_string_buffer(int(nbytes))
        addr = ctypes.addressof(buf)
        self._host[addr] = buf
        self.made[addr] = "host memory"
        return (OK, addr)

    def cuMemFreeHost(self, addr):
        return self._release(addr, "host memory")

    def cuMemcpyHtoDAsync(self, dst, src, nbytes, stream):
        return (OK,)

    def cuMemcpyDtoHAsync(self, dst, src, nbytes, stream):
        return (OK,)

    def cuMemsetD32Async(self, dst, value, count, stream):
        return (OK,)

    def cuStreamCreate(self, flags):
        return (OK, self._make("stream"))

    def cuStreamDestroy(self, h):
        return self._release(h, "stream")

    def cuStreamSynchronize(self, h):
        return (OK,)

    def cuStreamWaitEvent(self, stream, event, flags):
        return (OK,)

    def cuEventCreate(self, flags):
        return (OK, self._make("event"))

    def cuEventDestroy(self, h):
        return self._release(h, "event")

    def cuEventRecord(self, event, stream):
        return (OK,)

    # --- modules and launches -----------------------------------------------------------------------------------
    def cuModuleLoadData(self, image):
        return (OK, self._make("module"))

    def cuModuleUnload(self, h):
        return self._release(h, "module")

    def cuModuleGetFunction(self, module, name):
        return (OK, next(self._ids))

    def cuFuncGetAttribute(self, attr, func):
        return (OK, 32)

    def cuLaunchKernel(self, *args):
        return (OK,)

    def cuLaunchKernelEx(self, *args):
        return (OK,)

    # --- graphs ---------------------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream, mode):
        return (OK,)

    def cuStreamEndCapture(self, stream):
        return (OK, self._make("graph"))

    def cuGraphCreate(self, flags):
        return (OK, self._make("graph"))

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        return (OK, next(self._ids))

    def cuGraphAddMemsetNode(self, graph, deps, count, params, ctx):
        return (OK, next(self._ids))

    def cuGraphDestroy(self, h):
        return self._release(h, "graph")

    def cuGraphInstantiate(self, graph, flags):
        return (OK, self._make("graph exec"))

    def cuGraphExecDestroy(self, h):
        return self._release(h, "graph exec")

    def cuGraphExecUpdate(self, exe, graph):
        return (OK, None)

    def cuGraphUpload(self, exe, stream):
        return (OK,)

    def cuGraphLaunch(self, exe, stream):
        return (OK,)


# --- the one seam: which driver cugraphlab talks to -------------------------------------------------------------
# cugraphlab.core sends every driver call through ``core._door._driver`` (and the few ctypes calls through
# ``_door._libcuda``) and runs cuInit once per process (``core.device._initialised``). Tests name those private
# globals here and nowhere else: ``use_driver`` (a context manager), ``patch_driver`` (through pytest's monkeypatch,
# undone at the test's teardown), ``refuse_device`` (no driver at all),
# ``install_driver`` (for good, in a worker process) and ``current_driver``; the fixtures ``fake_driver`` and
# ``no_gpu`` (tests/conftest.py) are made of them.
_DRIVER, _LIBCUDA, _INITIALISED = ("cugraphlab.core._door._driver", "cugraphlab.core._door._libcuda",
                                   "cugraphlab.core.device._initialised")


def patch_driver(monkeypatch, fake, libcuda=None):
    """cugraphlab talks to ``fake`` (and ``libcuda``, where given, for its ctypes calls) until the test ends; cuInit
    is run again (on the fake) at the next call. Returns ``fake``."""
    monkeypatch.setattr(_DRIVER, fake)
    if libcuda is not None:
        monkeypatch.setattr(_LIBCUDA, libcuda)
    monkeypatch.setattr(_INITIALISED, False)
    return fake


def current_driver():
    """What cugraphlab talks to now: the bindings' driver module or a fake."""
    import cugraphlab.core._door as door

    return door._driver


def install_driver(fake):
    """cugraphlab talks to ``fake`` for the rest of this process (a worker process of a test, which ends with it)."""
    import cugraphlab.core._door as door
    import cugraphlab.core.device as device

    door._driver, device._initialised = fake, False
    return fake


def refuse_device(monkeypatch, message: str = "no NVIDIA driver found (forced by the test)"):
    """cugraphlab finds no driver until the test ends: its cuInit raises NoDeviceError(``message``)."""
    from cugraphlab.core.errors import NoDeviceError

    def refuse(*args, **kwargs):
        raise NoDeviceError(message)

    monkeypatch.setattr("cugraphlab.core.device.init", refuse)
    monkeypatch.setattr(_INITIALISED, False)


class use_driver:  # noqa: N801 (used as a function: ``with use_driver(fake):``)
    """``with use_driver(fake) as fake:``: cugraphlab talks to ``fake`` inside the block, to what it talked to
    before after it. On the way out the objects the block dropped are collected while the fake is still in place:
    a finalizer run later, under another fake or the real bindings, could release a handle into the wrong driver."""

    def __init__(self, fake, libcuda=None):
        self.fake, self.libcuda = fake, libcuda

    def __enter__(self):
        import pytest

        self._patch = pytest.MonkeyPatch()
        return patch_driver(self._patch, self.fake, self.libcuda)

    def __exit__(self, *exc):
        import gc

        try:
            gc.collect()
        finally:
            self._patch.undo()
        return False
