"""bench.switch end to end on the graph-model fake (no GPU) as a CUDA 13.0 driver answers: cuGraphNodeGetParams, which
cuda-bindings 13.3 know and the driver does not export, raises as on the H200 and must never be called; the node
counts of the K-sizes holding rows come from the body graphs the driver wrote when each conditional node was added."""
from __future__ import annotations

from switch_fixtures import cond_driver, own_kernels  # noqa: F401


def test_measure_switch_runs_to_the_end_without_cuGraphNodeGetParams(cond_driver):
    from cugraphlab import Device
    from cugraphlab.bench.graphs.switch import measure_switch

    asked = []

    def missing(*args):  # what cuda-bindings 13.3.1 raise on a CUDA 13.0 driver
        asked.append(args)
        raise RuntimeError('Function "cuGraphNodeGetParams" not found')

    cond_driver.cuGraphNodeGetParams = missing
    cond_driver.cuEventSynchronize = lambda event: (0,)
    cond_driver.cuEventElapsedTime = lambda a, b: (0, 0.002)
    with Device(0) as dev:
        r = measure_switch(dev, size=4096, branches=4, iters=3, repeats=1, holding_repeats=2, seed=1)
    assert asked == []
    switch, graphs = r.holding
    # one SWITCH graph: cond_switch + the SWITCH node, 4 bodies of the 4-kernel chain; 4 graphs of 4 kernels each
    assert (switch.execs, switch.nodes) == (1, 2 + 4 * 4)
    assert (graphs.execs, graphs.nodes) == (4, 4 * 4)
    assert len(switch.instantiate_samples) == len(graphs.instantiate_samples) == 2
    assert {row.name for row in r.rows} >= {"no conditional", "IF node", "SWITCH, index 0", "4 IF nodes, index 3"}


def test_each_build_names_the_bodies_it_made(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, n=1024) as chain, BranchGraphs(chain, 3) as kit:
        for build, count in ((kit.build_if_else, 2), (kit.build_switch, 3), (kit.build_if_sequence, 3),
                             (kit.build_sizes_switch, 3)):
            graph, info = build()
            with graph:
                made = [b for c in _of(cond_driver, graph) for b in c["bodies"]]
                assert [int(b) for b in info["body_graphs"]] == made and len(made) == count


def _of(fake, graph):
    return [c for n, c in fake.conditional.items() if fake.node_graph[n] == graph.handle]
