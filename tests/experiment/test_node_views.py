"""``cugraphlab graph --mode host|events|child|join|memory|devlaunch`` without a GPU: each mode's graph built on the
node-family fakes (the topology its lesson makes, DOT files asked for), the node-adding driver calls in order, the
modes in the CLI's choices, and the device-launch gate as one line with exit 2.

The fakes compute nothing, so every output stays poisoned and every bit-exact check must fail here: each test also
asserts that (a check that could not fail would prove nothing); the GPU tests (test_node_views_gpu.py) assert the
checks pass."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cugraphlab.core._calls import tracing

OPS = ("add", "mul", "sub", "relu")
KERNELS = ["KERNEL"] * 4


def _with_dot(fake):
    """The fakes know no cuGraphDebugDotPrint: this one writes a stub DOT file where the driver would."""
    from cuda.bindings import driver

    def dot_print(graph, path, flags):
        Path(path.decode() if isinstance(path, bytes) else path).write_text(f"digraph g{int(graph)} {{}}\n")
        return (driver.CUresult.CUDA_SUCCESS,)

    fake.cuGraphDebugDotPrint = dot_print
    return fake


@pytest.fixture
def nodes_driver(monkeypatch):
    from fake_nodes import install

    return _with_dot(install(monkeypatch))


def _kinds(report):
    return [n.label.split(":")[0] for n in report.view.nodes]


def _adds(entries, first=0):
    """The node-adding calls (cuGraphAdd*), in order, 12.x spellings folded into the 13 names."""
    out = []
    for e in entries[first:]:
        api = e.api
        base, _, v = api.rpartition("_v")
        api = base if base and v.isdigit() else api
        if api.startswith("cuGraphAdd"):
            out.append(api)
    return out


def _inspect(mode, size=1024, **kw):
    from cugraphlab.experiment.graph_report import inspect_chain_graph

    with tracing(None) as t:
        report = inspect_chain_graph(mode, OPS, size, 0, **kw)
    return report, t.entries


def _assert_checks_failed_on_the_fake(report):
    fails = [n for n in report.notes if n.strip().startswith("FAIL")]
    assert fails and not report.ok, report.notes  # poisoned outputs: the check can fail, and does here


def test_node_modes_are_graph_modes():
    from cugraphlab.experiment.graph_report import GRAPH_MODES
    from cugraphlab.experiment.node_views import NODE_VIEW_MODES

    assert set(NODE_VIEW_MODES) <= set(GRAPH_MODES)
    assert GRAPH_MODES[:7] == ("capture", "explicit", "forkjoin", "while", "ifelse", "switch", "while-captured")


@pytest.mark.parametrize("mode", ["host", "events", "child", "join", "memory", "devlaunch"])
def test_graph_command_accepts_the_node_modes(mode):
    from cugraphlab.cli.graphs import add_commands

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true")
    add_commands(sub, common)
    args = p.parse_args(["graph", "--mode", mode, "--dot", "g.dot", "--unroll", "5"])
    assert args.mode == mode and args.unroll == 5


def test_host_mode(nodes_driver, tmp_path):
    report, entries = _inspect("host", dot=str(tmp_path / "host.dot"))
    assert report.mode == "host"
    assert _kinds(report) == ["KERNEL", "KERNEL", "HOST", "KERNEL", "KERNEL"]
    assert report.view.edges == ((0, 1), (1, 2), (2, 3), (3, 4))
    assert report.view.nodes[2].detail.startswith("host fn 0x")
    # built: add, mul, host, sub, relu; then captured: the kernels launched and cuLaunchHostFunc (no cuGraphAdd)
    assert _adds(entries) == ["cuGraphAddKernelNode"] * 2 + ["cuGraphAddHostNode"] + ["cuGraphAddKernelNode"] * 2
    assert any("same topology: 5 nodes, 4 edges" in n for n in report.notes)
    # the fake really calls the host function at each launch: once per launch, in both graphs
    assert sum("ran 1 time(s) in one launch" in n for n in report.notes) == 2
    assert report.dot_path == str(tmp_path / "host.dot") and (tmp_path / "host.dot").is_file()
    _assert_checks_failed_on_the_fake(report)


def test_events_mode(nodes_driver, tmp_path):
    report, entries = _inspect("events", dot=str(tmp_path / "ev.dot"))
    assert _kinds(report) == ["KERNEL", "KERNEL", "EVENT_RECORD"]
    assert _adds(entries) == ["cuGraphAddKernelNode"] * 2 + ["cuGraphAddEventRecordNode",
                                                               "cuGraphAddEventWaitNode"] + ["cuGraphAddKernelNode"] * 2
    graph2 = next(n for n in report.notes if n.startswith("3 nodes"))
    assert "WAIT_EVENT" in graph2 and "[0] -> [1]" in graph2
    assert any(str(tmp_path / "ev_wait.dot") in n for n in report.notes) and (tmp_path / "ev_wait.dot").is_file()
    _assert_checks_failed_on_the_fake(report)


def test_child_mode(nodes_driver):
    report, entries = _inspect("child")
    assert _kinds(report) == ["GRAPH"]
    assert report.view.nodes[0].detail.startswith("child graph of 4 nodes")
    # the flat chain, then the nested one: its chain built, then embedded as one node
    assert _adds(entries) == KERNELS_ADD * 2 + ["cuGraphAddChildGraphNode"]
    assert any("the embedded copy" in n and "same topology: 4 nodes, 3 edges" in n for n in report.notes)
    _assert_checks_failed_on_the_fake(report)


KERNELS_ADD = ["cuGraphAddKernelNode"] * 4


def test_join_mode(nodes_driver):
    report, entries = _inspect("join")
    assert _kinds(report) == ["MEMSET"] * 4 + ["EMPTY"] + KERNELS
    assert _adds(entries) == ["cuGraphAddMemsetNode"] * 4 + ["cuGraphAddEmptyNode"] + KERNELS_ADD
    assert sorted(e for e in report.view.edges if e[1] == 4) == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert any("edges into the empty node: 4" in n and "out of it: 1" in n for n in report.notes)
    _assert_checks_failed_on_the_fake(report)


def test_memory_mode(monkeypatch):
    from fake_memnodes import install

    install(monkeypatch)
    report, entries = _inspect("memory")
    assert _kinds(report) == ["MEM_ALLOC", "KERNEL", "MEM_ALLOC", "KERNEL", "MEM_FREE", "MEM_ALLOC", "KERNEL",
                              "MEM_FREE", "KERNEL", "MEM_FREE"]
    assert report.view.edges == tuple((i, i + 1) for i in range(9))
    assert _adds(entries)[:4] == ["cuGraphAddMemAllocNode", "cuGraphAddKernelNode", "cuGraphAddMemAllocNode",
                                  "cuGraphAddKernelNode"]
    assert any("same topology: 10 nodes, 9 edges" in n for n in report.notes)
    assert report.view.nodes[0].detail.startswith("4 KiB (4,096 bytes) at 0x")
    _assert_checks_failed_on_the_fake(report)


def _device_loop_module():
    """The module experiment.device_loop (the package's attribute of that name is its function device_loop)."""
    import importlib

    return importlib.import_module("cugraphlab.experiment.device_loop")


class _StubLoop:
    """Stands in for experiment.device_loop.DeviceLoop (nvJitLink and libcudadevrt.a are not needed to test the
    view): the graphs it builds are the chain's kernels (+ one kernel standing for dl_relaunch) on the fake
    driver; its runs report what a failed device loop reports."""

    note = "stub: sm_90, nvJitLink 13"

    def __init__(self, chain):
        self.chain, self.asked = chain, []

    def _graph(self, extra: int):
        from cugraphlab.graphs.build import add_launch_sequence
        from cugraphlab.graphs.exec import Graph

        g = Graph(self.chain.device)
        add_launch_sequence(g, list(self.chain.launches) + list(self.chain.launches[-1:]) * extra)
        return g

    def build_self(self, limit):
        self.asked.append(("self", limit))
        return self._graph(1)

    def build_work(self):
        return self._graph(0)

    def work_exec(self):
        return "W"

    def build_launcher(self, target, mode):
        self.asked.append(("launcher", target, mode))
        return self._graph(0)

    def _check(self, kind, expected):
        from cugraphlab.experiment.device_loop import DeviceLoopCheck
        from cugraphlab.experiment.ops import Verification

        return DeviceLoopCheck(kind, expected, 0, 0, 0, Verification(kind, 1, 1, 0, 0.0, 1.0))

    def run_loop(self, shape, limit):
        self.asked.append(("loop", shape, limit))
        return self._check(f"{shape} loop", limit)

    def run_launch(self, mode):
        self.asked.append(("launch", mode))
        return self._check(mode, 1)


@pytest.mark.parametrize("unroll, iterations", [(1, 10), (4, 4)])
def test_devlaunch_mode(nodes_driver, monkeypatch, unroll, iterations):
    kits = []
    monkeypatch.setattr(_device_loop_module(), "device_loop", lambda chain: kits.append(_StubLoop(chain)) or kits[-1])
    report, _entries = _inspect("devlaunch", unroll=unroll)
    assert report.mode == "devlaunch" and _kinds(report) == KERNELS + ["KERNEL"]
    assert f"fewer than {iterations} iterations" in report.title
    (kit,) = kits
    assert kit.asked == [("self", iterations), ("launcher", "W", "tail"), ("loop", "self", iterations),
                         ("loop", "scheduler", iterations), ("launch", "fire_and_forget"), ("launch", "tail")]
    assert any(n.startswith("device graph launch: stub") for n in report.notes)
    _assert_checks_failed_on_the_fake(report)


def test_devlaunch_gate_is_one_line_and_exit_2(nodes_driver, monkeypatch, capsys):
    from cugraphlab import cli
    from cugraphlab.core.errors import UnsupportedError

    def refused(device=None, driver=None):
        raise UnsupportedError("device graph launch needs sm_90 or newer (this GPU: sm_80)")

    # the real DeviceLoop, stopped by its own gate (graphs.device_launch.require_device_launch)
    monkeypatch.setattr(_device_loop_module(), "require_device_launch", refused)
    code = cli.main(["graph", "--mode", "devlaunch"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "device graph launch needs sm_90" in err[0]


def test_unknown_node_mode_is_refused():
    from cugraphlab.core.errors import InvalidArgumentError
    from cugraphlab.experiment.node_views import inspect_node_mode

    with pytest.raises(InvalidArgumentError, match="unknown graph mode"):
        inspect_node_mode("capture", OPS, 1024)


def test_companion_dot_names():
    from cugraphlab.experiment.node_views import companion_dot

    assert companion_dot("out/g.dot", "wait") == Path("out/g_wait.dot")
    assert companion_dot("g", "flat") == Path("g_flat.dot")
