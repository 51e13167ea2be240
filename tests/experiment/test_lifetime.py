"""Ownership without a GPU: forgotten objects are collected, and each of their handles is released exactly once.

The driver is tests/fake_driver.FakeDriver (a ledger of handles); kernels are really compiled by NVRTC for sm_90.
"""
from __future__ import annotations

import gc
import weakref

import pytest

from cugraphlab.core._resource import Resource


def _drop_and_collect(make):
    """Make an object with ``make()``, forget it, collect; return whether it is gone."""
    obj = make()
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    return ref() is None


def _assert_all_released_once(fake, keep=("context",)):
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0 and k not in keep]
    assert live == [], f"handles never released: {live}"
    assert fake.released_twice() == []


def test_forgotten_chain_with_graphs_is_collected(fake_driver):
    from cugraphlab import Chain, Device

    dev = Device(0)
    made_before = len(fake_driver.made)

    def make():
        chain = Chain(dev, n=1000)
        chain.run("graph", 4)  # an exec in the runner's cache
        chain.run("graph", 4, unroll=2)
        chain.run("fused", 120)  # the fused graph of 50 launches
        return chain

    assert _drop_and_collect(make)
    assert len(fake_driver.made) > made_before + 8  # buffers, stream, modules, graphs, execs were made
    _assert_all_released_once(fake_driver)
    dev.close()
    _assert_all_released_once(fake_driver, keep=())


@pytest.mark.parametrize("what", ["pdl", "forkjoin", "chaingraph", "conditional", "runner", "kernelset"])
def test_forgotten_composites_are_collected(fake_driver, what):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment import ChainGraph, ConditionalGraphs, ForkJoin, PdlChain, conditional_graphs

    dev = Device(0)

    def make():
        if what == "pdl":
            pdl = PdlChain(dev, n=512)
            pdl.run("graph", 2)
            return pdl
        if what == "forkjoin":
            fj = ForkJoin(dev, n=512)
            fj.capture().close()
            return fj
        if what == "chaingraph":
            chain = Chain(dev, n=512)
            cg = ChainGraph(chain, "explicit")
            cg.chain_ref = chain  # the chain lives as long as the ChainGraph here
            return cg
        if what == "conditional":
            chain = Chain(dev, n=512)
            kit = conditional_graphs(chain)  # kept by the chain, which it refers to: a cycle
            assert isinstance(kit, ConditionalGraphs)
            return chain
        if what == "runner":
            chain = Chain(dev, n=512)
            chain.runner.graph_exec(3)
            return chain.runner  # the chain is forgotten at once; the runner alone is kept
        return dev.load_kernels(names=["add", "relu"])

    assert _drop_and_collect(make)
    gc.collect()
    _assert_all_released_once(fake_driver)
    dev.close()


def test_close_releases_children_before_own_handles(fake_driver):
    from cugraphlab import Chain, Device

    order = []
    real_free, real_destroy = fake_driver.cuMemFree, fake_driver.cuGraphExecDestroy
    fake_driver.cuMemFree = lambda h: (order.append("memory"), real_free(h))[1]
    fake_driver.cuGraphExecDestroy = lambda h: (order.append("exec"), real_destroy(h))[1]
    with Device(0) as dev, Chain(dev, n=256) as chain:
        chain.graph_exec()
    assert order and order[0] == "exec" and set(order[1:]) == {"memory"}  # execs before the buffers they read
    _assert_all_released_once(fake_driver, keep=())


def test_own_refuses_a_release_that_reaches_the_object():
    class Bad(Resource):
        def __init__(self, how):
            if how == "bound":
                self._own(self.release)
            else:
                self._own(lambda: self.release())

        def release(self):
            pass

    for how in ("bound", "closure"):
        with pytest.raises(TypeError, match="refers to the object itself"):
            Bad(how)


def test_children_close_in_reverse_order_and_errors_surface_after_all_ran():
    log = []

    class Leaf(Resource):
        def __init__(self, name, fail=False):
            def release():
                log.append(name)
                if fail:
                    raise RuntimeError(f"{name} refused")

            self._own(release)

    class Parent(Resource):
        def __init__(self):
            self._own(lambda: log.append("parent"))
            self.adopt(Leaf("a"))
            self.adopt(Leaf("b", fail=True))
            self.adopt(Leaf("c"))

    p = Parent()
    with pytest.raises(RuntimeError, match="b refused"):
        p.close()
    assert log == ["c", "b", "a", "parent"] and p.closed
    p.close()  # idempotent
    assert log == ["c", "b", "a", "parent"]
