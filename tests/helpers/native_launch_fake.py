"""A fake cuLaunchKernel / cuGraphLaunch in C for core.native_launch's CPU tests.

The fakes record every argument of their last call and a call count in one static struct, read the first
kernelParams slot like the driver would (so a wrong pointer shows), and return a status the test sets. With
``wait_for_flag`` set they spin (up to ``wait_ns``) until a Python thread sets ``flag``: a thread can only do that
while the caller of the launch has released the GIL.
"""
from __future__ import annotations

import ctypes

from cugraphlab.core.native import load_c_library

FAKE_SOURCE = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

typedef struct {
    void *f;
    unsigned int dims[7];      /* gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes */
    unsigned int pad;
    void *stream;
    void **params;
    void **extra;
    uint64_t first_slot;       /* *(uint64_t *)params[0], 0 without params */
    int64_t calls;
    int64_t graph_calls;
    void *graph_exec;
    void *graph_stream;
    int32_t status;            /* what the fakes return */
    int32_t wait_for_flag;     /* nonzero: spin until flag is set or wait_ns passed */
    int64_t wait_ns;
    volatile int32_t flag;
    int32_t flag_seen;         /* the last call saw the flag set */
} fake_record;

fake_record fake_rec;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

static void maybe_wait(void)
{
    if (!fake_rec.wait_for_flag) return;
    const int64_t end = now_ns() + fake_rec.wait_ns;
    while (!fake_rec.flag && now_ns() < end) { }
    fake_rec.flag_seen = fake_rec.flag != 0;
}

int fake_launch(void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                unsigned int bz, unsigned int smem, void *stream, void **params, void **extra)
{
    fake_rec.f = f;
    fake_rec.dims[0] = gx; fake_rec.dims[1] = gy; fake_rec.dims[2] = gz;
    fake_rec.dims[3] = bx; fake_rec.dims[4] = by; fake_rec.dims[5] = bz; fake_rec.dims[6] = smem;
    fake_rec.stream = stream;
    fake_rec.params = params;
    fake_rec.extra = extra;
    fake_rec.first_slot = params ? *(uint64_t *)params[0] : 0;
    fake_rec.calls += 1;
    maybe_wait();
    return fake_rec.status;
}

int fake_graph_launch(void *exec, void *stream)
{
    fake_rec.graph_exec = exec;
    fake_rec.graph_stream = stream;
    fake_rec.graph_calls += 1;
    maybe_wait();
    return fake_rec.status;
}
"""


class FakeRecord(ctypes.Structure):
    _fields_ = [("f", ctypes.c_void_p), ("dims", ctypes.c_uint * 7), ("pad", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("params", ctypes.c_void_p), ("extra", ctypes.c_void_p),
                ("first_slot", ctypes.c_uint64), ("calls", ctypes.c_int64), ("graph_calls", ctypes.c_int64),
                ("graph_exec", ctypes.c_void_p), ("graph_stream", ctypes.c_void_p), ("status", ctypes.c_int32),
                ("wait_for_flag", ctypes.c_int32), ("wait_ns", ctypes.c_int64), ("flag", ctypes.c_int32),
                ("flag_seen", ctypes.c_int32)]


class NativeLaunchFakeDriver:
    """The compiled fakes: ``launch`` / ``graph_launch`` addresses and ``rec`` (the record, read and written in
    place). ``reset()`` zeroes the record."""

    def __init__(self, cache):
        self.lib = load_c_library(FAKE_SOURCE, "native_launch_fake", cache=cache)
        self.rec = FakeRecord.in_dll(self.lib, "fake_rec")
        self.launch = ctypes.cast(self.lib.fake_launch, ctypes.c_void_p).value
        self.graph_launch = ctypes.cast(self.lib.fake_graph_launch, ctypes.c_void_p).value
        self.reset()

    def reset(self) -> None:
        ctypes.memset(ctypes.addressof(self.rec), 0, ctypes.sizeof(self.rec))
