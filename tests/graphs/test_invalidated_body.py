"""A capture into a conditional body (or into a plain graph) invalidated by a synchronize, without a GPU: the fake
driver does what the H200's driver did in benchmarks/conditional_invalidation_probe.py (the graph captured into is
destroyed by cuStreamEndCapture; destroying the parent of such a body crashes), and cugraphlab must neither destroy
the body's parent nor destroy the captured-into graph a second time, whatever the script does next."""
from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest

from switch_fixtures import cond_driver, install, own_kernels  # noqa: F401


def _invalidate(s, into):
    from cugraphlab.graphs.capture_into import capture_into

    with capture_into(s, into):
        s.synchronize()  # refused, and the capture is invalidated


def test_the_parent_of_an_invalidated_body_is_closed_and_never_destroyed(cond_driver):
    from cugraphlab import Device
    from cugraphlab.core.errors import CaptureError
    from cugraphlab.graphs import Graph
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle

    with Device(0) as dev, dev.create_stream() as s:
        g = Graph(dev)
        h = create_handle(g, dev.context, 1)
        _node, body = add_conditional_node(g, [], "IF", h, dev.context)
        with pytest.raises(CaptureError) as info:
            _invalidate(s, body)
        assert "cuStreamSynchronize" in str(info.value)
        notes = " ".join(getattr(info.value, "__notes__", []))
        if sys.version_info >= (3, 11):
            assert "parent Graph is closed without being destroyed" in notes, notes
        assert g.closed and "leaked" in g.lost
        with pytest.raises(Exception, match="closed"):
            g.instantiate()  # one clear error, not a crash
        g.close()  # closing again does nothing
        assert int(g.handle) in cond_driver.broken_parents
    assert cond_driver.refused == []  # the parent was never handed to cuGraphDestroy
    assert cond_driver.released[int(g.handle)] == 0  # left to the driver (the only clean end on the H200)
    assert cond_driver.released[int(body)] == 1  # destroyed once, by the driver


def test_a_forgotten_parent_is_not_destroyed_by_the_collector_either(cond_driver):
    from cugraphlab import Device
    from cugraphlab.core.errors import CaptureError
    from cugraphlab.graphs import Graph
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle

    dev = Device(0)
    s = dev.create_stream()
    g = Graph(dev)
    handle = int(g.handle)
    _node, body = add_conditional_node(g, [], "WHILE", create_handle(g, dev.context, 1), dev.context)
    with pytest.raises(CaptureError):
        _invalidate(s, body)
    del g
    gc.collect()
    s.close()
    dev.close()
    assert cond_driver.refused == [] and cond_driver.released[handle] == 0


def test_a_plain_graph_captured_into_is_not_destroyed_twice(cond_driver):
    from cugraphlab import Device
    from cugraphlab.core.errors import CaptureError
    from cugraphlab.graphs import Graph

    with Device(0) as dev, dev.create_stream() as s:
        g = Graph(dev)
        with pytest.raises(CaptureError):
            _invalidate(s, g)
        assert g.closed and "destroyed this graph" in g.lost
    assert cond_driver.released[int(g.handle)] == 1 and cond_driver.released_twice() == []


def test_a_capture_that_succeeds_leaves_the_parent_ours(cond_driver):
    from cugraphlab import Device
    from cugraphlab.graphs import Graph
    from cugraphlab.graphs.capture_into import capture_into
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle

    with Device(0) as dev, dev.create_stream() as s:
        g = Graph(dev)
        _node, body = add_conditional_node(g, [], "IF", create_handle(g, dev.context, 1), dev.context)
        with capture_into(s, body):
            pass
        assert not g.closed and g.lost == ""
        g.close()
    assert cond_driver.released[int(g.handle)] == 1 and cond_driver.released[int(body)] == 1
    assert cond_driver.refused == [] and cond_driver.broken_parents == set()


def test_the_process_ends_cleanly_with_the_broken_parent_left_open(tmp_path):
    """The field gallery's cgl_conditional_body, its end: the parent left to the interpreter's exit."""
    script = tmp_path / "broken_body.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.path[:0] = [sys.argv[1]]
        from fake_driver import patch_driver  # noqa
        from fake_conditional import FakeConditionalDriver
        import cugraphlab.core._door as door, cugraphlab.core.device as device
        fake = FakeConditionalDriver()
        door._driver = fake; device._initialised = False
        import atexit
        atexit.register(lambda: print("refused", fake.refused, flush=True))
        import cugraphlab as cgl
        from cugraphlab.graphs import add_conditional_node, capture_into, create_handle
        with cgl.Device(0) as dev, dev.create_stream() as s:
            graph = cgl.Graph(dev)
            node, body = add_conditional_node(graph, [], "IF", create_handle(graph, dev.context, 1), dev.context)
            try:
                with capture_into(s, body):
                    s.synchronize()
            except cgl.CugraphlabError as e:
                print("raised", type(e).__name__, flush=True)
        print("after the with block", flush=True)
    """))
    import pathlib

    helpers = str(pathlib.Path(__file__).resolve().parents[1] / "helpers")
    p = subprocess.run([sys.executable, str(script), helpers], capture_output=True, text=True, timeout=120,
                       check=False)
    assert p.returncode == 0, p.stderr
    assert "raised CaptureError" in p.stdout and "after the with block" in p.stdout
    assert "refused []" in p.stdout, p.stdout
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
