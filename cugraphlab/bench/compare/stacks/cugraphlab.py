"""cugraphlab's own objects: ``Chain`` (eager, graph, fused) and a ``Launch`` of ``add``.

``launch``: the chain's first ``Launch`` (``add`` on x, y) enqueued k times by a ``Runner`` (cugraphlab's one hot
loop: one ``cuLaunchKernel`` binding call with its prebuilt argument tuple, one status test). ``eager`` / ``graph`` / ``fused``:
``Chain.run(mode, k)`` exactly as ``cugraphlab run`` times it (graph: one captured iteration per ``cuGraphLaunch``;
fused: graphs of ``FUSED_PER_GRAPH`` fused launches).
"""
from __future__ import annotations

import numpy as np

from ..driver_data import DriverStack
from ..way import Way, import_error

__all__ = ["open_stack", "CugraphlabWay"]


def _add_launch(chain):
    """(Launch of ``add``: outs[0] = x + y, on the chain's stream and config; the KernelSet it lives in), for a
    chain that does not start with add."""
    from ....core.launch import Launch, PackedArgs

    args = PackedArgs(("ptr", "ptr", "ptr", "u64"), (chain.outs[0], chain.x, chain.y, chain.n))
    kernels = chain.device.load_kernels(names=["add"])
    return Launch(kernels["add"], args, chain.config, chain.stream), kernels


class CugraphlabWay(Way):
    way = "Chain / Launch"
    same_cubin = True

    def __init__(self, stack, n, ops, scalar):
        from ....experiment.chain import Chain

        super().__init__()
        dev = stack.device
        self.chain = Chain(dev, ops, n, scalar)
        self.start, self.end = dev.create_event(), dev.create_event()
        self.extra = None
        if ops[0] == "add":
            self.add = self.chain.launches[0]
        else:
            self.add, self.extra = _add_launch(self.chain)
        from ....experiment.runners import Runner

        self.add_runner = Runner([self.add], self.chain.stream)
        self.runners = {"launch": self.add_runner.eager, "eager": self._mode("eager"), "graph": self._mode("graph"),
                        "fused": self._mode("fused")}
        self.kernels = {"launch": 1, "eager": len(ops), "graph": len(ops), "fused": 1}
        from ....experiment.ops import FUSED_PER_GRAPH

        self.notes = {"fused": f"graphs of {FUSED_PER_GRAPH} fused launches (device-bound floor)"}

    def _mode(self, mode):
        run = self.chain.run
        return lambda k: run(mode, k)

    def prepare(self, mode):
        if mode == "graph":
            self.chain.graph_exec()
        elif mode == "fused":
            self.chain.fused_graph_exec()

    def set_inputs(self, x, y):
        self.chain.set_inputs(np.ascontiguousarray(x, np.float32), np.ascontiguousarray(y, np.float32))

    def poison(self):
        self.chain.poison()

    def result(self, mode):
        if mode == "launch":
            return self.chain.outs[0].to_numpy(stream=self.chain.stream)
        return self.chain.result(mode)

    def synchronize(self):
        self.chain.stream.synchronize()

    def record_start(self):
        self.start.record(self.chain.stream)

    def record_end(self):
        self.end.record(self.chain.stream)

    def elapsed_ms(self):
        return self.start.elapsed_us(self.end) / 1e3  # the Way protocol speaks ms, as every stack's events do

    def close(self):
        for r in (self.end, self.start, self.add_runner, self.chain, self.extra):
            if r is None:
                continue
            try:
                r.close()
            except Exception:
                pass


class _CugraphlabStack(DriverStack):
    def __init__(self, ordinal, ops):
        super().__init__("cugraphlab", ordinal, ops)
        from ...._version import __version__

        self.versions = {"cugraphlab": __version__}

    def ways(self, n, ops, scalar):
        return [CugraphlabWay(self, n, ops, scalar)]


def open_stack(device: int, ops, variant: str = "") -> _CugraphlabStack:
    """cugraphlab's own Chain/Launch on device ``device``."""
    try:
        from ....experiment.chain import Chain  # noqa: F401
    except Exception as e:
        raise import_error(e, "cuda") from e
    return _CugraphlabStack(device, ops)
