"""bench.nodes end to end on the node-families fake (no GPU): every kernelParams the measurement hands the driver
belongs to a PackedArgs that is still alive at that call. The first H200 run segfaulted right after "child graphs
measured": the controls lesson timed cuGraphExecKernelNodeSetParams with params whose launch had been dropped, so
the driver followed pointers read from freed memory (tests/helpers/live_args.py)."""
from __future__ import annotations

import pytest

from live_args import install


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def test_every_kernel_params_the_nodes_bench_passes_is_alive(fake):
    from cugraphlab import Device
    from cugraphlab.bench.graphs.nodes import measure_nodes

    messages = []
    with Device(0) as dev:
        r = measure_nodes(dev, 512, repeats=1, iters=2, calls=3, progress=messages.append)
    assert messages == ["host nodes measured", "event nodes measured", "child graphs measured",
                        "node controls measured"]
    assert fake.args.checked > 50  # the check saw the calls: launches, nodes added, params set
    assert fake.args.dead == [], f"kernelParams of a freed PackedArgs given to the driver: {fake.args.dead[:5]}"
    assert r.row("host per cuGraphExecKernelNodeSetParams").summary.n == 1


def test_the_check_catches_a_dropped_launch(fake):
    """The fake is not blind: params of a launch nobody holds any more are caught at the call."""
    from cugraphlab import Chain, Device
    from cugraphlab.core._calls import cu
    from cugraphlab.experiment.nodes import chain_graph_nodes, toggle_launches
    from cugraphlab.graphs.build import kernel_node_params

    with Device(0) as dev, Chain(dev, n=512) as chain:
        graph, nodes = chain_graph_nodes(chain)
        with graph, graph.instantiate() as exe:
            held = toggle_launches(chain)[1]
            cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[1], kernel_node_params(held))
            assert fake.args.dead == []
            dropped = kernel_node_params(toggle_launches(chain)[1])  # the Launch goes at the end of this line
            cu("cuGraphExecKernelNodeSetParams", exe.handle, nodes[1], dropped)
            assert [call for call, _ in fake.args.dead] == ["cuGraphExecKernelNodeSetParams"]


def test_every_lesson_check_passes_live_kernel_params(fake):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment import nodes as lessons

    with Device(0) as dev, Chain(dev, n=512) as chain:
        for check in (lessons.check_host, lessons.check_events, lessons.check_nested, lessons.check_clone,
                      lessons.check_join, lessons.check_toggle, lessons.check_priority):
            check(chain)  # outputs are not computed on the fake: only what reaches the driver is checked
        assert lessons.refused_instantiate(chain) is not None
    assert fake.args.checked > 20 and fake.args.dead == []
