"""The graph text view, topology comparison, kernel-node parameters and the graph/update CLI, without a GPU."""
from __future__ import annotations

import pytest

from cugraphlab import cli
from cugraphlab.core.launch import PackedArgs
from cugraphlab.experiment.forkjoin import branch_count
from cugraphlab.graphs.build import kernel_node_params
from cugraphlab.graphs.inspect import GraphView, Topology, depths, render_text, same_topology
from cugraphlab.graphs.update import UpdateReport
from cugraphlab.report.graphs import render_svg

CHAIN = Topology(("KERNEL:add", "KERNEL:mul", "KERNEL:sub", "KERNEL:relu"), ((0, 1), (1, 2), (2, 3)))
# Two branches (add -> mul, sub -> relu) joined by an add.
FORK = Topology(("KERNEL:add", "KERNEL:sub", "KERNEL:mul", "KERNEL:relu", "KERNEL:add"),
                ((0, 2), (1, 3), (2, 4), (3, 4)))


def test_chain_text_lists_nodes_edges_and_one_node_per_layer():
    text = render_text(GraphView.from_topology(CHAIN, {0: "grid 1056, block 256"}), "chain")
    lines = text.splitlines()
    assert lines[0] == "chain" and lines[1] == "4 nodes, 3 edges"
    assert "[0] KERNEL:add" in lines[2] and "grid 1056, block 256" in lines[2]
    assert "after [2]" in lines[5]
    assert "edges: [0] -> [1]  [1] -> [2]  [2] -> [3]" in text
    layers = [l for l in lines if " | " in l]
    assert [l.split("|")[1].strip() for l in layers] == ["[0] add", "[1] mul", "[2] sub", "[3] relu"]


def test_parallel_branches_share_a_layer():
    text = render_text(FORK)
    layers = [l.split("|")[1].split() for l in text.splitlines() if " | " in l]
    assert layers[0] == ["[0]", "add", "[1]", "sub"]
    assert layers[1] == ["[2]", "mul", "[3]", "relu"]
    assert layers[2] == ["[4]", "add"]
    assert "after [2], [3]" in text


def test_depths_and_branch_count():
    assert depths(5, FORK.edges) == [0, 0, 1, 1, 2]
    assert depths(1, ()) == [0]
    assert branch_count(FORK) == 2 and branch_count(CHAIN) == 1


def test_empty_graph_renders():
    assert render_text(Topology((), ())) == "0 nodes, 0 edges"


def test_same_topology_says_what_differs():
    assert same_topology(CHAIN, Topology(CHAIN.nodes, CHAIN.edges)) == (True, "same topology: 4 nodes, 3 edges")
    same, diff = same_topology(CHAIN, Topology(CHAIN.nodes[:3], CHAIN.edges[:2]))
    assert not same and "node count: 4 vs 3" in diff and "node [3]: KERNEL:relu vs -" in diff
    assert "edges only in the first: [2] -> [3]" in diff
    same, diff = same_topology(CHAIN, Topology(("KERNEL:add", "KERNEL:mul", "KERNEL:add", "KERNEL:relu"),
                                               CHAIN.edges))
    assert not same and "node [2]: KERNEL:sub vs KERNEL:add" in diff


def test_kernel_node_params_carry_the_packed_arguments():
    from types import SimpleNamespace

    from cuda.bindings import driver

    from cugraphlab.core.launch import Launch, LaunchConfig

    args = PackedArgs(("ptr", "ptr", "f32", "u64"), (0x1000, 0x2000, 2.0, 77))
    kernel = SimpleNamespace(handle=driver.CUfunction(0), name="k")
    launch = Launch(kernel, args, LaunchConfig(132, 256), SimpleNamespace(handle=driver.CUstream(0)))
    p = kernel_node_params(launch)
    assert (p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY, p.blockDimZ) == (132, 1, 1, 256, 1, 1)
    assert int(p.kernelParams) == args.address and p.sharedMemBytes == 0 and int(p.extra) == 0


def test_update_report_text():
    r = UpdateReport("reinstantiate", "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED", "KERNEL:relu",
                     "the new graph has other nodes or edges", 12.5)
    assert r.refused
    assert str(r) == ("reinstantiate (12.5 us host): CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED at KERNEL:relu "
                      "-- the new graph has other nodes or edges")
    assert not UpdateReport("set_params").refused


def test_render_svg_without_graphviz_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr("shutil.which", lambda name: None)
    svg, note = render_svg(tmp_path / "g.dot")
    assert svg is None and "not installed" in note


def test_graph_command_parses():
    a = cli.build_parser().parse_args(["graph"])
    assert (a.mode, a.ops, a.size, a.dot, a.device, a.unroll) == ("capture", "add,mul,sub,relu", 1 << 20, None, 0, 1)
    a = cli.build_parser().parse_args(["graph", "--mode", "forkjoin", "--ops", "add,relu", "--size", "4_096",
                                       "--dot", "g.dot", "--device", "1", "--unroll", "3"])
    assert (a.mode, a.ops, a.size, a.dot, a.device, a.unroll) == ("forkjoin", "add,relu", 4096, "g.dot", 1, 3)


def test_update_command_parses():
    a = cli.build_parser().parse_args(["update"])
    assert (a.size, a.repeats, a.device) == (1 << 20, 200, 0)
    a = cli.build_parser().parse_args(["update", "--size", "1024", "--repeats", "50"])
    assert (a.size, a.repeats) == (1024, 50)


@pytest.mark.parametrize("argv", [["graph", "--mode", "sideways"], ["graph", "--unroll", "0"],
                                  ["update", "--repeats", "0"], ["update", "--size", "x"]])
def test_bad_graph_options_exit_2(argv):
    assert cli.main(argv) == 2


@pytest.mark.parametrize("command", [["graph"], ["graph", "--mode", "explicit"], ["graph", "--mode", "forkjoin"],
                                     ["update", "--repeats", "5"]])
def test_graph_commands_without_gpu_print_one_line_and_exit_2(command, no_gpu, capsys):
    assert cli.main(command) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "no usable GPU" in err


def test_graph_refuses_unknown_op_before_the_gpu(no_gpu, capsys):
    assert cli.main(["graph", "--ops", "add,pow"]) == 2
    assert "unknown op 'pow'" in capsys.readouterr().err
