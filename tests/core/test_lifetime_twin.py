"""The lifetime matrix's CPU twin (benchmarks/lifetime/matrix.py runs the real one on a GPU, one process per cell).

Every object that lives in a context, left in every state a script leaves it in, with the fake driver, which counts
the primary context's retains as the driver does and records any handle released after its context was destroyed
(``after_context``): the hang and crash of issue 30, where ``with Device(0)`` ended with a graph exec open. Whatever
the order, no handle is released after its context, every handle is released exactly once, and the context is
destroyed once the last object is gone.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

OBJECTS = ("module", "stream", "event", "array", "launch", "graph", "exec", "updated", "runner", "chain", "pdl",
           "forkjoin", "conditional")
ENDS = ("ends", "raises", "order", "reverse", "collected", "thread", "device_first")


def _build(obj: str, dev) -> list:
    import cugraphlab as cgl

    if obj == "stream":
        return [dev.create_stream()]
    if obj == "event":
        return [dev.create_stream(), dev.create_event(), dev.create_event(timing=False)]
    if obj == "array":
        return [dev.to_device(np.random.default_rng().standard_normal(64).astype(np.float32))]
    if obj in ("chain", "pdl", "forkjoin", "conditional"):
        from cugraphlab.experiment import ForkJoin, PdlChain, conditional_graphs

        if obj == "pdl":
            pdl = PdlChain(dev, n=512)
            pdl.run("graph", 2)
            return [pdl]
        if obj == "forkjoin":
            fj = ForkJoin(dev, n=512)
            fj.capture().close()
            return [fj]
        chain = cgl.Chain(dev, n=512)
        chain.run("graph", 2)
        return [chain, conditional_graphs(chain)] if obj == "conditional" else [chain]
    kernels = dev.load_kernels(names=["add"])
    if obj == "module":
        return [kernels]
    stream = dev.create_stream()
    x, y, out = (dev.array(256) for _ in range(3))
    launch = kernels["add"].prepare(("ptr", "ptr", "ptr", "u64"), (out, x, y, 256), (1, 256), stream)
    launch()
    base = [kernels, stream, x, y, out]
    if obj == "launch":
        return base
    if obj == "runner":
        from cugraphlab.experiment import Runner

        runner = Runner([launch], stream)
        runner.run("graph", 3)
        return base + [runner]
    with cgl.capture(stream) as cap:
        launch()
    if obj == "graph":
        return base + [cap.graph]
    exe = cap.graph.instantiate()
    exe.launch(stream)
    if obj == "exec":
        return base + [cap.graph, exe]
    from cugraphlab.graphs import try_exec_update

    with cgl.capture(stream) as cap2:
        launch()
    try_exec_update(exe, cap2.graph)
    return base + [cap.graph, cap2.graph, exe]


def _close(objs, reverse: bool) -> None:
    for o in (reversed(objs) if reverse else objs):
        o.close()


def _assert_clean(fake) -> None:
    assert fake.after_context == [], f"released after their context was destroyed: {fake.after_context}"
    live = [(hex(h), k) for h, k in fake.made.items() if fake.released[h] == 0]
    assert live == [], f"never released: {live}"
    assert fake.released_twice() == []
    assert fake.primary_retains(0) == 0, "the primary context outlived everything made in it"


@pytest.mark.parametrize("end", ENDS)
@pytest.mark.parametrize("obj", OBJECTS)
def test_no_handle_outlives_its_context(fake_driver, obj, end):
    from cugraphlab import Device

    kept: list = []
    dev = None
    try:
        with Device(0) as dev:
            objs = _build(obj, dev)
            assert fake_driver.primary_retains(0) > 1, "objects made in the context hold no lease of it"
            if end == "raises":
                raise KeyError("raised inside the block")
            if end in ("order", "reverse"):
                _close(objs, end == "reverse")
                assert fake_driver.primary_retains(0) == 1  # only the Device's own hold is left
            elif end == "collected":
                objs.clear()
                gc.collect()
                assert fake_driver.primary_retains(0) == 1
            elif end == "thread":
                errors: list = []
                t = threading.Thread(target=lambda: _close(objs, True) if not errors else None)
                t.start()
                t.join()
            elif end == "device_first":
                dev.close()  # the Device goes first; what was made in it still works and is freed later
                assert fake_driver.primary_retains(0) >= 1 and fake_driver.destroyed_contexts == set()
                _close(objs, False)
            kept = objs
    except KeyError:
        pass
    # the block has ended and the Device is closed: whatever is still open keeps the context alive
    if kept and any(not o.closed for o in kept):
        assert fake_driver.destroyed_contexts == set()
    del kept
    objs = dev = None
    gc.collect()  # what the garbage collector (or interpreter exit) frees after the Device is gone
    _assert_clean(fake_driver)


def test_a_closed_device_with_nothing_alive_refuses_new_objects(fake_driver):
    from cugraphlab import CugraphlabError, Device

    dev = Device(0)
    dev.close()
    with pytest.raises(CugraphlabError, match="closed"):
        dev.create_stream()
    _assert_clean(fake_driver)


def test_an_exec_instantiated_after_its_device_closed_keeps_the_context(fake_driver):
    import cugraphlab as cgl

    dev = cgl.Device(0)
    stream = dev.create_stream()
    with cgl.capture(stream) as cap:
        pass
    graph = cap.graph
    dev.close()
    exe = graph.instantiate()  # the graph's lease keeps the context: the exec takes one of its own
    for r in (graph, stream):
        r.close()
    assert fake_driver.destroyed_contexts == set()
    exe.close()
    _assert_clean(fake_driver)


def test_a_created_context_is_destroyed_by_its_last_holder(fake_driver):
    from cugraphlab.core.context import CreatedContext

    ctx = CreatedContext(0, "spin")
    stream, event = ctx.create_stream(), ctx.create_event()
    ctx.close()
    assert fake_driver.destroyed_contexts == set(), "cuCtxDestroy ran while a stream and an event lived in it"
    event.close()
    stream.close()
    assert fake_driver.destroyed_contexts == {int(ctx.context)}
    assert fake_driver.after_context == []


_EXIT_SCRIPT = textwrap.dedent('''
    import atexit, sys
    sys.path.insert(0, {helpers!r})
    from fake_driver import FakeDriver
    fake = FakeDriver()

    def report():  # registered before any weakref.finalize exists: runs after every finalizer of interpreter exit
        live = [k for h, k in fake.made.items() if fake.released[h] == 0]
        print("AFTER", len(fake.after_context), "LIVE", len(live), "RETAINS", fake.primary_retains(0), flush=True)

    atexit.register(report)
    import cugraphlab.core._door as door
    door._driver = fake
    import cugraphlab as cgl
    with cgl.Device(0) as dev:
        kernels = dev.load_kernels(names=["add"])
        stream = dev.create_stream()
        x, y, out = (dev.array(256) for _ in range(3))
        launch = kernels["add"].prepare(("ptr", "ptr", "ptr", "u64"), (out, x, y, 256), (1, 256), stream)
        with cgl.capture(stream) as cap:
            launch()
        exe = cap.graph.instantiate()
        exe.launch(stream)
    print("after the with block", flush=True)
''')


def test_interpreter_exit_with_everything_open_frees_each_handle_before_its_context(tmp_path):
    helpers = os.path.join(os.path.dirname(os.path.dirname(__file__)), "helpers")
    script = tmp_path / "leave_open.py"
    script.write_text(_EXIT_SCRIPT.format(helpers=helpers))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "after the with block" in p.stdout
    assert "AFTER 0 LIVE 0 RETAINS 0" in p.stdout, p.stdout + p.stderr
    assert "Exception ignored" not in p.stderr and "Traceback" not in p.stderr, p.stderr
