"""IF/ELSE and SWITCH nodes without a GPU: node parameters, the CUDA 12.8 gate, the bodies the driver hands back, and
the graphs the chain lesson builds (on tests/helpers/fake_conditional.FakeConditionalDriver)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from cuda.bindings import driver as real

from cugraphlab.core.errors import InvalidArgumentError, UnsupportedError
from cugraphlab.graphs.conditional import (
    MAX_SWITCH_BODIES,
    add_conditional_node,
    add_if_else_node,
    add_switch_node,
    conditional_node_params,
    create_handle,
    require_conditional_branches,
)
from switch_fixtures import cond_driver, install, own_kernels  # noqa: F401

COND = real.CUgraphConditionalNodeType


@pytest.mark.parametrize("kind, size", [("WHILE", 1), ("IF", 1), ("IF", 2), ("SWITCH", 1), ("SWITCH", 4),
                                        ("SWITCH", MAX_SWITCH_BODIES)])
def test_node_params_carry_kind_size_handle_and_context(kind, size):
    p = conditional_node_params(kind, real.CUgraphConditionalHandle(0x77), real.CUcontext(0x1234), size)
    assert p.type == real.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    assert p.conditional.type == getattr(COND, f"CU_GRAPH_COND_TYPE_{kind}")
    assert p.conditional.size == size
    assert int(p.conditional.handle) == 0x77 and int(p.conditional.ctx) == 0x1234
    # the driver writes the bodies' array when the node is added; until then the pointer is NULL (and reading
    # phGraph_out then would read `size` handles from address 0: bodies_of is for after cuGraphAddNode only)
    assert ctypes.c_uint64.from_address(int(p.conditional.getPtr()) + 16).value == 0


@pytest.mark.parametrize("kind, size", [("WHILE", 2), ("IF", 0), ("IF", 3), ("SWITCH", 0),
                                        ("SWITCH", MAX_SWITCH_BODIES + 1), ("ELSE", 1), ("IF", True)])
def test_node_params_refuse_impossible_body_counts(kind, size):
    with pytest.raises(ValueError):
        conditional_node_params(kind, 1, 0, size)


def test_bodies_come_back_from_the_driver(cond_driver):
    from cugraphlab import Device
    from cugraphlab.graphs import Graph

    with Device(0) as dev, Graph(dev) as g:
        h = create_handle(g.handle, dev.context, None)
        node, (if_body, else_body) = add_if_else_node(g.handle, [], h, dev.context)
        assert cond_driver.conditional[int(node)] == {"type": "IF", "size": 2, "handle": int(h),
                                                      "bodies": [int(if_body), int(else_body)]}
        h2 = create_handle(g.handle, dev.context, None)
        node2, bodies = add_switch_node(g.handle, [node], h2, dev.context, 4)
        assert [int(b) for b in bodies] == cond_driver.conditional[int(node2)]["bodies"]
        assert len(set(map(int, bodies))) == 4 and cond_driver.conditional[int(node2)]["type"] == "SWITCH"
        assert (int(node), int(node2)) in cond_driver.graphs[int(g.handle)]["edges"]
        h3 = create_handle(g.handle, dev.context, 1)
        _n, body = add_conditional_node(g.handle, [node2], "WHILE", h3, dev.context)  # the old API: one body
        assert cond_driver.made[int(body)] == "body graph"
        with pytest.raises(ValueError):
            add_conditional_node(g.handle, [], "SWITCH", h3, dev.context)
    # the parent's destruction freed every body once; nobody destroyed a body on its own
    bodies = [b for b, k in cond_driver.made.items() if k == "body graph"]
    assert len(bodies) == 7 and all(cond_driver.released[b] == 1 for b in bodies)
    assert cond_driver.refused == []


def test_the_12x_bindings_form_is_used_with_12x_bindings(monkeypatch, own_kernels):
    fake = install(monkeypatch, cuda_version=12090)
    calls = []
    orig = fake.cuGraphAddNode_v2
    fake.cuGraphAddNode_v2 = lambda *a: (calls.append(len(a)), orig(*a))[1]
    from cugraphlab import Device
    from cugraphlab.graphs import Graph

    with Device(0) as dev, Graph(dev) as g:
        h = create_handle(g.handle, dev.context, None)
        _node, bodies = add_switch_node(g.handle, [], h, dev.context, 3)
        assert len(bodies) == 3
    assert calls == [5]  # (graph, deps, edge data, count, params)


# --- the gate: one line ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("version, text", [(12040, "12.4"), (12070, "12.7"), (12030, "12.3")])
def test_drivers_before_12_8_get_one_line(monkeypatch, own_kernels, version, text):
    install(monkeypatch, driver_version=version, cuda_version=12090)  # a 12.x driver runs 12.x bindings
    monkeypatch.setattr("cugraphlab.core.device.check_driver_matches_bindings", lambda: None)  # and NVRTC 12
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev:
        with pytest.raises(UnsupportedError) as e:
            require_conditional_branches(dev)
        assert str(e.value) == ("IF/ELSE and SWITCH conditional nodes: needs a driver for CUDA 12.8 or newer; "
                                f"this one supports CUDA {text}")
        assert "\n" not in str(e.value)
        with Chain(dev, n=256) as chain, pytest.raises(UnsupportedError):
            BranchGraphs(chain)


@pytest.mark.parametrize("version", [12080, 12090, 13000, 13010])
def test_drivers_from_12_8_pass(monkeypatch, own_kernels, version):
    install(monkeypatch, driver_version=version, cuda_version=12090 if version < 13000 else None)
    monkeypatch.setattr("cugraphlab.core.device.check_driver_matches_bindings", lambda: None)
    import cugraphlab.core._calls as calls
    from cugraphlab import Device

    asked = []
    real_require = calls.require_driver

    def require_driver(feature, need, driver=None):  # what the gate compared, and that it let it through
        seen = tuple(driver or calls.driver_cuda_version())
        real_require(feature, need, driver)
        asked.append((feature, tuple(need), seen))

    monkeypatch.setattr("cugraphlab.core._compat.require_driver", require_driver)  # the gates' room
    with Device(0) as dev:
        assert require_conditional_branches(dev) is None
    assert asked == [("IF/ELSE and SWITCH conditional nodes", (12, 8), (version // 1000, version % 1000 // 10))]


def test_bindings_without_switch_get_one_line(monkeypatch, own_kernels):
    fake = install(monkeypatch)

    class OldKinds:  # the enum of bindings older than CUDA 12.8: no SWITCH
        CU_GRAPH_COND_TYPE_IF = COND.CU_GRAPH_COND_TYPE_IF
        CU_GRAPH_COND_TYPE_WHILE = COND.CU_GRAPH_COND_TYPE_WHILE

    fake.CUgraphConditionalNodeType = OldKinds
    with pytest.raises(UnsupportedError) as e:
        require_conditional_branches()
    msg = str(e.value)
    assert msg.startswith("IF/ELSE and SWITCH conditional nodes: need CU_GRAPH_COND_TYPE_SWITCH, which cuda-bindings ")
    assert "pip install -U" in msg and "\n" not in msg


# --- the chain lesson's graphs on the fake ---------------------------------------------------------------------
def _kernels_of(fake, graph) -> list[str]:
    from cugraphlab.graphs.inspect import kernel_name, kernel_nodes_in_order

    return [kernel_name(n) for n in kernel_nodes_in_order(graph)]


def test_if_else_graph_shape(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, n=1000) as chain, BranchGraphs(chain, 2) as kit:
        graph, info = kit.build_if_else()
        with graph:
            assert [n for n in info["parent"].splitlines()[1:]] == ["  [0] KERNEL:cond_sign",
                                                                    "  [1] CONDITIONAL  <- 0"]
            (node,) = [n for n, c in cond_driver.conditional.items() if cond_driver.node_graph[n] == graph.handle]
            c = cond_driver.conditional[node]
            assert (c["type"], c["size"]) == ("IF", 2)
            assert _kernels_of(cond_driver, c["bodies"][0]) == ["add", "mul", "sub", "relu"]
            assert _kernels_of(cond_driver, c["bodies"][1]) == ["add", "mul", "sub"]
            assert len(info["bodies"]) == 2 and info["bodies"][1].startswith("body 1 (ELSE: add -> mul -> sub)")


def test_switch_graphs_shape(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs
    from cugraphlab.experiment.chain import chain_grid

    with Device(0) as dev, Chain(dev, n=1 << 12) as chain, BranchGraphs(chain, 4) as kit:
        assert [v.name for v in kit.variants] == ["chain", "without relu", "without sub", "fused"]
        for build, want in ((kit.build_switch, [["add", "mul", "sub", "relu"], ["add", "mul", "sub"],
                                                ["add", "mul", "relu"], ["fused"]]),
                            (kit.build_sizes_switch, [["add", "mul", "sub", "relu"]] * 4)):
            graph, _info = build()
            with graph:
                (node,) = [n for n in cond_driver.conditional if cond_driver.node_graph[n] == graph.handle]
                c = cond_driver.conditional[node]
                assert (c["type"], c["size"]) == ("SWITCH", 4)
                assert [_kernels_of(cond_driver, b) for b in c["bodies"]] == want
        # every variant writes buffers of its own, none shared with another body or the chain
        ptrs = [a.ptr for b in kit.bodies for a in b.outs] + [a.ptr for a in chain.outs]
        assert len(ptrs) == len(set(ptrs))
        # the sizes' launches: n >> k elements, a grid for that size
        assert kit.sizes == [4096, 2048, 1024, 512]
        for n, launches in zip(kit.sizes, kit.size_launches):
            assert launches[0].config.grid[0] == chain_grid(n, dev.sm_count)
            assert int.from_bytes(launches[0].args.raw()[24:32], "little") == n  # add(out, x, y, n)


def test_k_if_nodes_run_in_sequence(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, n=512) as chain, BranchGraphs(chain, 4) as kit:
        graph, info = kit.build_if_sequence()
        with graph:
            lines = info["parent"].splitlines()
            assert lines[0] == "5 nodes, 4 edges"
            assert lines[1:] == ["  [0] KERNEL:cond_one_hot"] + [f"  [{i}] CONDITIONAL  <- {i - 1}"
                                                                   for i in range(1, 5)]
            conds = [c for n, c in cond_driver.conditional.items() if cond_driver.node_graph[n] == graph.handle]
            assert [(c["type"], c["size"]) for c in conds] == [("IF", 1)] * 4
            assert len({c["handle"] for c in conds}) == 4  # one handle per IF node
        one, _ = kit.build_if_sequence(1)
        with one:
            assert one.node_count == 2


def test_chain_variants_sizes_and_the_sign_prediction():
    from cugraphlab.experiment.branches import chain_variants, predict_sign, sizes_for

    v = chain_variants(("add", "mul", "sub", "relu"), 6)
    assert [x.name for x in v] == ["chain", "without relu", "without sub", "fused", "chain #2", "without relu #2"]
    assert v[3].fused and v[3].describe() == "fused(add,mul,sub,relu)"
    assert chain_variants(("relu",), 2)[1].ops == ("relu",)  # nothing left: the whole chain
    with pytest.raises(InvalidArgumentError):
        chain_variants(("add",), 9)
    assert sizes_for(1000, 4) == [1000, 500, 250, 125] and sizes_for(2, 3) == [2, 1, 1]
    x = np.array([1e8, 1.0, -1e8, 0.5], dtype=np.float32)
    # in float32, 1e8 + 1 rounds to 1e8: the in-order sum is 0.5 > 0, not what a float64 sum would say first
    assert predict_sign(x, 3) is False and predict_sign(x, 4) is True
    assert predict_sign(-x, 4) is False and predict_sign(np.zeros(4, np.float32), 4) is False


def test_force_sign_flips_the_decision(cond_driver):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs, predict_sign

    with Device(0) as dev, Chain(dev, n=4096, seed=3) as chain, BranchGraphs(chain, 2) as kit:
        for want in (True, False, True, False, False, True):
            kit.force_sign(want)
            assert predict_sign(chain.x_host, kit.probe) is want


@pytest.mark.parametrize("bad", [-1, 2 ** 32, 1.5, True])
def test_switch_index_is_checked(cond_driver, bad):
    from cugraphlab import Chain, Device
    from cugraphlab.experiment.branches import BranchGraphs

    with Device(0) as dev, Chain(dev, n=64) as chain, BranchGraphs(chain, 2) as kit:
        with pytest.raises(InvalidArgumentError):
            kit.set_index(bad)
        kit.set_index(2)  # out of range is allowed: it selects no body
        with pytest.raises(InvalidArgumentError):
            kit.build_size_graph(2)
