"""Which ``void** kernelParams`` handed to the driver still belong to a live PackedArgs.

The driver reads ``kernelParams`` (an array of pointers to the argument values) at every call that takes them:
cuLaunchKernel, cuGraphAddKernelNode, cuGraphKernelNodeSetParams, cuGraphExecKernelNodeSetParams. A
CUDA_KERNEL_NODE_PARAMS holds that address as a plain int, so nothing keeps the PackedArgs behind it alive: drop the
Launch and the next call makes the driver follow pointers read from freed memory (the segfault of the first H200 run
of benchmarks/nodes.py). ``LiveArgs`` records every PackedArgs made while installed, weakly, by its address;
``LiveArgsDriver`` (the node-families fake) checks each such call against it and lists the ones that were not.
"""
from __future__ import annotations

import weakref

from fake_driver import patch_driver
from fake_nodes import FakeLibcuda, FakeNodesDriver


class LiveArgs:
    """Every PackedArgs made after ``install``, by the address its kernelParams array has (weakly held)."""

    def __init__(self, monkeypatch):
        from cugraphlab.core.launch import PackedArgs

        self.live: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.checked = 0
        self.dead: list[tuple[str, int]] = []
        original = PackedArgs.__init__
        live = self.live

        def init(obj, *args, **kwargs):
            original(obj, *args, **kwargs)
            if obj.address:
                live[obj.address] = obj

        monkeypatch.setattr(PackedArgs, "__init__", init)

    def check(self, call: str, address) -> None:
        address = int(address)
        if not address:
            return
        self.checked += 1
        if address not in self.live:
            self.dead.append((call, address))


class LiveArgsDriver(FakeNodesDriver):
    """The node-families fake, checking that every kernelParams it is given is a live PackedArgs'."""

    def __init__(self, live: LiveArgs, **kw):
        super().__init__(**kw)
        self.args = live

    def cuLaunchKernel(self, *args):
        self.args.check("cuLaunchKernel", args[9])
        return super().cuLaunchKernel(*args)

    def cuGraphAddKernelNode(self, graph, deps, count, params):
        self.args.check("cuGraphAddKernelNode", params.kernelParams)
        return super().cuGraphAddKernelNode(graph, deps, count, params)

    def cuGraphKernelNodeSetParams(self, node, params):
        self.args.check("cuGraphKernelNodeSetParams", params.kernelParams)
        return super().cuGraphKernelNodeSetParams(node, params)

    def cuGraphExecKernelNodeSetParams(self, exe, node, params):
        self.args.check("cuGraphExecKernelNodeSetParams", params.kernelParams)
        return super().cuGraphExecKernelNodeSetParams(exe, node, params)


def install(monkeypatch) -> LiveArgsDriver:
    """cugraphlab talking to a LiveArgsDriver (and its libcuda); ``fake.args`` is the LiveArgs record."""
    fake = LiveArgsDriver(LiveArgs(monkeypatch))
    return patch_driver(monkeypatch, fake, FakeLibcuda(fake))
