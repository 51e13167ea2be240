"""Native-way factories for the paired cuGraphExecUpdate measurement on the fake driver: real
``studies.exec_update.native_update`` objects (their C built with the system compiler) whose entry points are ctypes callbacks
updating ``ExecUpdateFakeDriver``'s ledger, so the measurement's checks see whether the executable really moved."""
from __future__ import annotations

import ctypes

PROTO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_KERNEL_PARAMS_OFFSET = 40  # CUDA_KERNEL_NODE_PARAMS_v2.kernelParams


def native_factories(fake, cache, *, noop_set_params: bool = False):
    """(update factory, set-params factory) for ``measure_exec_update(native_factories=...)``. The update callback
    logs ("native", exec, graph); each set-params callback checks that the struct it got points at its launch's
    packed arguments (``fake.bad_params`` counts the ones that do not) and moves the executable to the graph whose
    arguments the launch holds (nothing with ``noop_set_params``)."""
    from studies.exec_update.native_update import NativeExecUpdate, NativeKernelNodeSetParams

    keep = fake.__dict__.setdefault("_native_keep", [])
    fake.bad_params = 0
    fake.set_params_calls = []

    def update_cb(exe, graph, info):
        if not info:
            return 1  # CUDA_ERROR_INVALID_VALUE: the driver needs the result info
        fake.update("native", exe, graph)
        return 0

    update_fn = PROTO(update_cb)
    keep.append(update_fn)
    update_entry = ctypes.cast(update_fn, ctypes.c_void_p).value

    def make_update(exe, graph):
        return NativeExecUpdate(exe, graph, exec_update=update_entry, cache=cache)

    def make_set_params(exe, node, launch, graph):
        target, want = int(graph.handle), int(launch.args.address)

        def cb(e, n, params):
            got = ctypes.c_void_p.from_address(params + _KERNEL_PARAMS_OFFSET).value or 0
            fake.bad_params += got != want
            fake.set_params_calls.append((e, n))
            if not noop_set_params:
                fake.exec_graph[int(e)] = target
            return 0

        fn = PROTO(cb)
        keep.append(fn)
        return NativeKernelNodeSetParams(exe, node, launch, set_params=ctypes.cast(fn, ctypes.c_void_p).value,
                                         cache=cache)

    return make_update, make_set_params
