"""Ownership on the GPU: a composite object dropped without close() gives all its device memory back to the garbage
collector (issue: objects that owned others were never freed; 100 dropped chains of 2^18 floats held 766 MiB)."""
from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.gpu

N = 1 << 18
COPIES = 20
MIB = 1 << 20


def _make(device, what):
    from cugraphlab import Chain
    from cugraphlab.experiment import ChainGraph, ForkJoin, PdlChain, conditional_graphs

    if what == "chain":
        chain = Chain(device, n=N)
        chain.run("graph", 2)
        chain.run("fused", 60)
        return chain
    if what == "pdl":
        pdl = PdlChain(device, n=N)
        pdl.run("graph", 2)
        return pdl
    if what == "forkjoin":
        fj = ForkJoin(device, n=N)
        fj.check()
        return fj
    if what == "chaingraph":
        chain = Chain(device, n=N)
        cg = ChainGraph(chain, "capture")
        cg.kept_chain = chain
        return cg
    chain = Chain(device, n=N)
    conditional_graphs(chain).run_while(3)  # chain <-> its conditional graphs: a cycle
    return chain


@pytest.mark.parametrize("what", ["chain", "pdl", "forkjoin", "chaingraph", "conditional"])
def test_dropped_objects_give_their_memory_back(device, what):
    if what == "pdl" and device.compute_capability[0] < 9:
        pytest.skip("PDL needs sm_90")
    # First, as many objects alive at once, closed explicitly: module loads and the driver's own pools (streams,
    # graph uploads) reach the high-water mark that this test's objects need, so what follows sees only our frees.
    warm = [_make(device, what) for _ in range(COPIES)]
    for obj in warm:
        obj.close()
    del warm
    gc.collect()
    device.synchronize()
    free_before = device.memory_info()[0]
    objects = [_make(device, what) for _ in range(COPIES)]
    device.synchronize()
    held = free_before - device.memory_info()[0]
    assert held >= COPIES * N * 4, f"{what}: the objects hold only {held / MIB:.1f} MiB while alive"
    del objects  # dropped, never closed
    gc.collect()
    device.synchronize()
    after = free_before - device.memory_info()[0]
    assert abs(after) <= MIB, f"{what}: {after / MIB:.1f} MiB of {held / MIB:.1f} still held after gc.collect()"
