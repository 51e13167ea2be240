"""A fake cuGraphExecUpdate_v2 / cuGraphExecKernelNodeSetParams_v2 in C, for the CPU tests of the exec_update
study's native update (benchmarks/studies/exec_update/native_update.py).

The fakes record the arguments of their last call and a call count in one static struct. The update fake writes the
result info the way the driver does (``info_result`` / ``info_node`` / ``info_from`` set by the test) before
returning ``status``; the set-params fake copies the whole CUDA_KERNEL_NODE_PARAMS it was given (so a wrong layout
shows) and reads the first kernelParams slot like the driver would.
"""
from __future__ import annotations

import ctypes

from cugraphlab.core.native import load_c_library

FAKE_SOURCE = r"""
#include <stdint.h>
#include <string.h>

typedef struct { int result; void *errorNode; void *errorFromNode; } info_t;

typedef struct {
    void *exec;
    void *target;
    void *info;                  /* the result-info pointer the update received */
    unsigned char params[72];    /* the CUDA_KERNEL_NODE_PARAMS_v2 set params received, byte for byte */
    uint64_t first_slot;         /* *(uint64_t *)kernelParams[0] */
    int64_t updates;
    int64_t set_params;
    int32_t status;              /* what the fakes return */
    int32_t info_result;         /* what the update fake writes into info->result */
    void *info_node;
    void *info_from;
    int32_t info_seen;           /* info->result as the update fake found it (the caller zeroes it first) */
    int32_t pad;
} fake_record;

fake_record fake_rec;

int fake_exec_update(void *exec, void *graph, info_t *info)
{
    fake_rec.exec = exec;
    fake_rec.target = graph;
    fake_rec.info = info;
    fake_rec.info_seen = info->result;
    info->result = fake_rec.info_result;
    info->errorNode = fake_rec.info_node;
    info->errorFromNode = fake_rec.info_from;
    fake_rec.updates += 1;
    return fake_rec.status;
}

int fake_set_params(void *exec, void *node, const void *params)
{
    void **kp;
    fake_rec.exec = exec;
    fake_rec.target = node;
    memcpy(fake_rec.params, params, sizeof(fake_rec.params));
    memcpy(&kp, (const char *)params + 40, sizeof(kp));   /* kernelParams: after func, 7 uints and padding */
    fake_rec.first_slot = kp ? *(uint64_t *)kp[0] : 0;
    fake_rec.set_params += 1;
    return fake_rec.status;
}
"""


class FakeRecord(ctypes.Structure):
    _fields_ = [("exec", ctypes.c_void_p), ("target", ctypes.c_void_p), ("info", ctypes.c_void_p),
                ("params", ctypes.c_ubyte * 72), ("first_slot", ctypes.c_uint64), ("updates", ctypes.c_int64),
                ("set_params", ctypes.c_int64), ("status", ctypes.c_int32), ("info_result", ctypes.c_int32),
                ("info_node", ctypes.c_void_p), ("info_from", ctypes.c_void_p), ("info_seen", ctypes.c_int32),
                ("pad", ctypes.c_int32)]


class FakeUpdateDriver:
    """The compiled fakes: ``exec_update`` / ``set_params`` addresses and ``rec`` (read and written in place)."""

    def __init__(self, cache):
        self.lib = load_c_library(FAKE_SOURCE, "native_update_fake", cache=cache)
        self.rec = FakeRecord.in_dll(self.lib, "fake_rec")
        self.exec_update = ctypes.cast(self.lib.fake_exec_update, ctypes.c_void_p).value
        self.set_params = ctypes.cast(self.lib.fake_set_params, ctypes.c_void_p).value
        self.reset()

    def reset(self) -> None:
        ctypes.memset(ctypes.addressof(self.rec), 0, ctypes.sizeof(self.rec))

    def params_bytes(self) -> bytes:
        return bytes(self.rec.params)
