"""The scaling workload on a fake driver that keeps real graphs: node and edge counts of lines and fork/joins, the
same graph by capture and by explicit building, and the eager twin issuing the same launches (no GPU needed)."""
from __future__ import annotations

import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.module import Kernel
from cugraphlab.experiment.scaling import ScalingWorkload, Shape, branch_lengths, scaling_kernel_names
from fake_driver import patch_driver

NAMES = ("empty", "add", "mul", "sub", "relu", "fused")


class FakeKernels(dict):
    """name -> Kernel with a distinct int handle, closable like a KernelSet."""

    def close(self):
        pass


@pytest.fixture
def gfake(monkeypatch):
    from graph_fake import GraphFakeDriver

    fake = GraphFakeDriver()
    patch_driver(monkeypatch, fake)
    return fake


@pytest.fixture
def dev(gfake):
    """A real cugraphlab Device on the fake driver."""
    from cugraphlab.core.device import Device

    with Device(0) as d:
        yield d


@pytest.fixture
def kernels():
    return FakeKernels({n: Kernel(None, n, 0x9000 + i) for i, n in enumerate(NAMES)})


def _preds(edges):
    out = {}
    for a, b in edges:
        out.setdefault(b, []).append(a)
    return out


def _succs(edges):
    out = {}
    for a, b in edges:
        out.setdefault(a, []).append(b)
    return out


def _check_shape(fake, graph, shape, per_unit, empty_handle):
    nodes, edges = fake.structure(graph.handle)
    assert len(nodes) == shape.nodes(per_unit)
    assert len(edges) == shape.edges(per_unit)
    preds, succs = _preds(edges), _succs(edges)
    roots = [n for n in nodes if n not in preds]
    sinks = [n for n in nodes if n not in succs]
    assert len(roots) == 1 and len(sinks) == 1
    if shape.topology == "line":
        assert all(len(v) == 1 for v in preds.values()) and all(len(v) == 1 for v in succs.values())
        return
    fork, join = roots[0], sinks[0]
    func = fake.graphs[int(graph.handle)]["func"]
    assert func[fork] == empty_handle and func[join] == empty_handle
    assert len(succs[fork]) == shape.width and len(preds[join]) == shape.width
    # every branch is a simple path from the fork to the join, of its share of the units
    lengths = []
    for first in succs[fork]:
        n, count = first, 0
        while n != join:
            count += 1
            assert len(preds[n]) == 1
            (n,) = succs[n]
        lengths.append(count)
    assert sorted(lengths) == sorted(b * per_unit for b in shape.branches())


@pytest.mark.parametrize("shape", [Shape("line", 1), Shape("line", 7), Shape("line", 64),
                                   Shape("forkjoin", 1, 1), Shape("forkjoin", 8, 4), Shape("forkjoin", 10, 3),
                                   Shape("forkjoin", 16, 16)], ids=lambda s: s.label)
@pytest.mark.parametrize("work", ["empty", "chain"])
def test_capture_and_explicit_build_make_the_expected_graph(gfake, dev, kernels, shape, work):
    with ScalingWorkload(dev, work, max_width=16, n=64, kernels=kernels, seed=1) as w:
        per_unit = 1 if work == "empty" else 4
        assert w.per_unit == per_unit
        for make in (w.capture, w.build):
            with make(shape) as g:
                _check_shape(gfake, g, shape, per_unit, kernels["empty"].handle)
                assert w.structure(g) == w.expected_structure(shape)
        assert not gfake.capturing  # every stream left the capture


def test_eager_twin_issues_the_same_launches(gfake, dev, kernels):
    shape = Shape("forkjoin", 12, 4)
    with ScalingWorkload(dev, "chain", max_width=4, n=64, kernels=kernels) as w:
        gfake.launches.clear()
        w.enqueue(shape)
        launches = list(gfake.launches)
        assert len(launches) == shape.nodes(4)
        streams = {s for _, s in launches}
        assert streams == {int(s.handle) for s in w.streams}
        # each branch's launches go to its own stream, the fork and the join to stream 0
        assert launches[0] == (kernels["empty"].handle, int(w.stream.handle))
        assert launches[-1] == (kernels["empty"].handle, int(w.stream.handle))
        with w.capture(shape) as g:
            funcs = sorted(gfake.graphs[int(g.handle)]["func"].values())
        assert funcs == sorted(f for f, _ in launches)


def test_unjoined_capture_is_caught_by_the_fake(gfake, dev, kernels):
    """The fake refuses a fork that never joins, so the join edges in the tests above are really checked."""
    from cugraphlab.core.errors import CaptureError
    from cugraphlab.graphs.capture import capture

    with ScalingWorkload(dev, "empty", max_width=2, kernels=kernels) as w:
        with pytest.raises(CaptureError):
            with capture(w.stream):
                w.fork_event.record(w.stream)
                w.streams[1].wait(w.fork_event)
                w.empty[1]()


def test_shapes_and_bad_input():
    assert branch_lengths(10, 3) == [4, 3, 3] and branch_lengths(8, 8) == [1] * 8
    s = Shape("forkjoin", 8, 4)
    assert s.nodes(1) == 10 and s.edges(1) == 12 and s.nodes(4) == 34 and s.edges(4) == 36
    assert Shape("line", 5).nodes(4) == 20 and Shape("line", 5).edges(4) == 19
    for bad in (lambda: Shape("ring", 4), lambda: Shape("line", 0), lambda: Shape("line", 4, 2),
                lambda: Shape("forkjoin", 2, 4), lambda: Shape("forkjoin", 64, 33),
                lambda: scaling_kernel_names("matmul")):
        with pytest.raises(InvalidArgumentError):
            bad()
    assert scaling_kernel_names("empty") == ["empty"]
    assert set(scaling_kernel_names("chain")) == set(NAMES)


def test_a_shape_wider_than_the_workload_is_refused(gfake, dev, kernels):
    with ScalingWorkload(dev, "empty", max_width=2, kernels=kernels) as w:
        with pytest.raises(InvalidArgumentError):
            w.capture(Shape("forkjoin", 8, 4))


def test_every_handle_is_released(gfake, dev, kernels):
    w = ScalingWorkload(dev, "chain", max_width=3, n=64, kernels=kernels)
    with w.capture(Shape("forkjoin", 6, 3)), w.build(Shape("line", 3)):
        pass
    w.close()
    assert [h for h in gfake.live() if gfake.made[h] != "context"] == []
    assert gfake.released_twice() == []
