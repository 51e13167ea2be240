"""The folded WHILE body with programmatic edges and with a decision every K iterations, without a GPU: the body's
nodes, kernels and edge kinds on a fake driver that keeps edge data (captured and node by node, both bindings'
call forms), every way a driver might refuse programmatic edges in a body turned into one typed line with nothing
leaked, the argument refusals, cond_relu's PTX order (wait before the decision), and the bench/CLI/probe checks
made before any GPU work."""
from __future__ import annotations

import argparse
import importlib.util
import re

import pytest

from fake_driver import patch_driver
from switch_fixtures import ROOT, own_kernels  # noqa: F401

PROGRAMMATIC = (1, 1, 0)  # (type PROGRAMMATIC, from port PROGRAMMATIC, to port 0)


def _install(monkeypatch, **kw):
    from fake_pdl_body import FakePdlBodyDriver

    fake = FakePdlBodyDriver(**kw)
    patch_driver(monkeypatch, fake)
    return fake


@pytest.fixture
def pdl_driver(monkeypatch, own_kernels):
    return _install(monkeypatch)


def _kit(dev, n=2048, ops=("add", "mul", "sub", "relu")):
    from cugraphlab import Chain
    from cugraphlab.experiment.conditional import conditional_graphs

    chain = Chain(dev, ops, n=n)
    return chain, conditional_graphs(chain)


def _body_edges(fake, body):
    return [fake.edge_data.get(e, (0, 0, 0)) for e in fake.graphs[int(body)]["edges"]]


def _names(fake, body):
    return [fake.func_names[fake.node_func[node]] for node in fake.graphs[int(body)]["nodes"]]


@pytest.mark.parametrize("how", ["capture", "nodes"])
def test_pdl_body_is_four_pdl_kernels_with_three_programmatic_edges(pdl_driver, how):
    from cugraphlab import Device

    fake = pdl_driver
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            graph, info = kit.build_while(3, fold=True, pdl=True, how=how)
            with graph:
                (body,) = fake.conditional[next(iter(fake.conditional))]["bodies"]
                assert _names(fake, body) == ["add", "mul", "sub", "cond_relu"]
                assert _body_edges(fake, body) == [PROGRAMMATIC] * 3
                parts = kit.pdl_parts()
                funcs = [fake.node_func[node] for node in fake.graphs[int(body)]["nodes"]]
                pdl_funcs = [int(parts.chain_kernels[k].handle) for k in ("add", "mul", "sub")]
                assert funcs[:3] == pdl_funcs  # the -DCGL_PDL kernels, not the chain's own
                assert funcs[3] == int(parts.fold_kernels["cond_relu"].handle)
                assert funcs[3] != int(kit.kernels["cond_relu"].handle)
                if how == "capture":  # the first launch plain, the others programmatic
                    assert fake.launch_kinds == ["plain", "programmatic", "programmatic", "programmatic"]
                else:  # one CUgraphEdgeData per dependency: none for the first node, programmatic after
                    assert fake.add_node_data[-4:] == [[], [PROGRAMMATIC], [PROGRAMMATIC], [PROGRAMMATIC]]
            assert info["kind"] == "WHILE folded, PDL edges" and info["pdl"] and info["every"] == 1
            lines = info["body_edges"].splitlines()
            assert lines[0] == "4 nodes, 3 edges (3 programmatic)"
            assert lines[1:] == ["  [0] KERNEL:add", "  [1] KERNEL:mul  <- 0 (programmatic)",
                                 "  [2] KERNEL:sub  <- 1 (programmatic)",
                                 "  [3] KERNEL:cond_relu  <- 2 (programmatic)"]
    assert not fake.live("graph") and not fake.live("graph exec")


def test_pdl_decision_launch_is_relu_with_handle_state_and_limit(pdl_driver):
    from cugraphlab import Device
    from cugraphlab.experiment.while_pdl import body_launches

    with Device(0) as dev:
        chain, kit = _kit(dev, n=1000)
        with chain:
            launches = body_launches(kit, 0xABC, 17, 1, pdl=True)
            assert [ln.config.programmatic for ln in launches] == [False, True, True, True]
            assert [ln.args for ln in launches[:3]] == [ln.args for ln in chain.launches[:3]]  # same buffers
            decide = launches[-1]
            assert decide.args.signature == ("ptr", "ptr", "u64", "u64", "ptr", "u64")
            out, src, n = chain.launches[-1].args._keep
            assert decide.args._keep == [out, src, n, 0xABC, kit.state, 17]
            assert decide.config.grid == chain.config.grid and decide.config.block == chain.config.block


@pytest.mark.parametrize("pdl", [True, False])
def test_every_k_body_holds_k_chains_and_one_decision_counting_k(pdl_driver, pdl):
    from cugraphlab import Device
    from cugraphlab.experiment.while_pdl import STEP_KERNEL, body_launches

    fake = pdl_driver
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            launches = body_launches(kit, 0x77, 12, 4, pdl=pdl)
            assert len(launches) == 16
            step = launches[-1]
            assert step.args.signature == ("ptr", "ptr", "u64", "u64", "ptr", "u64", "u64")
            assert step.args._keep[3:] == [0x77, kit.state, 4, 12]  # handle, state, step 4, limit 12
            graph, info = kit.build_while(12, fold=True, pdl=pdl, every=4)
            with graph:
                (body,) = fake.conditional[next(iter(fake.conditional))]["bodies"]
                assert _names(fake, body) == ["add", "mul", "sub", "relu"] * 3 + ["add", "mul", "sub", STEP_KERNEL]
                assert _body_edges(fake, body) == [PROGRAMMATIC if pdl else (0, 0, 0)] * 15
            want = "WHILE folded" + (", PDL edges" if pdl else "") + ", decision every 4 iterations"
            assert info["kind"] == want and info["every"] == 4
            assert "exact only for multiples of 4" in info["stop"]


def test_every_k_refuses_a_count_it_cannot_make_exact(pdl_driver):
    from cugraphlab import Device
    from cugraphlab.core.errors import InvalidArgumentError

    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            with pytest.raises(InvalidArgumentError, match="multiple of 4 iterations; got 10"):
                kit.build_while(10, fold=True, pdl=True, every=4)
            with pytest.raises(InvalidArgumentError, match="every"):
                kit.build_while(10, fold=True, every=0)
            with pytest.raises(InvalidArgumentError, match="fold=True"):
                kit.build_while(4, pdl=True)
            with pytest.raises(InvalidArgumentError, match="how must be one of"):
                kit.build_while(4, fold=True, pdl=True, how="magic")
            with pytest.raises(InvalidArgumentError, match="ending in relu"):
                with _kit(dev, ops=("add", "mul"))[0] as other:
                    from cugraphlab.experiment.conditional import conditional_graphs

                    conditional_graphs(other).build_while(4, fold=True, pdl=True)
    assert not pdl_driver.live("graph")


@pytest.mark.parametrize("refuse,how,call", [
    ("launch", "capture", "cuLaunchKernelEx: CUDA_ERROR_NOT_SUPPORTED"),
    ("end_capture", "capture", "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
    ("add_node", "nodes", "cuGraphAddNode: CUDA_ERROR_INVALID_VALUE"),
    ("instantiate", "capture", "cuGraphInstantiate"),
    ("downgrade", "capture", "the body holds 0 programmatic edges of the 3 asked for"),
    ("downgrade", "nodes", "the body holds 0 programmatic edges of the 3 asked for"),
])
def test_every_refusal_is_one_typed_line_and_leaks_nothing(monkeypatch, own_kernels, refuse, how, call):
    from cugraphlab import Device
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.pdl_edges import ProgrammaticEdgesRefused

    fake = _install(monkeypatch, refuse=refuse)
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            with pytest.raises(ProgrammaticEdgesRefused) as e:
                kit.run_while(3, fold=True, pdl=True, how=how)
            msg = str(e.value)
            assert isinstance(e.value, UnsupportedError) and "\n" not in msg
            assert msg.startswith("programmatic edges in a WHILE node's body: refused by this driver (")
            assert call in msg.replace("cuGraphAddNode_v2:", "cuGraphAddNode:")  # cuda-bindings 12 names the _v2 form
            assert not fake.live("graph") and not fake.live("graph exec")
            assert kit.run_while(3, fold=True).kind == "WHILE folded"  # the plain folded body still builds
            if refuse != "downgrade":
                every = kit.build_while(8, fold=True, every=4)[0]  # no PDL: nothing to refuse
                every.close()
    assert not fake.live("graph") and not fake.live("graph exec")


def test_pdl_body_before_hopper_is_one_line(monkeypatch, own_kernels):
    import fake_driver
    from cugraphlab import Device
    from cugraphlab.core.errors import UnsupportedError

    _install(monkeypatch)
    monkeypatch.setitem(fake_driver._ATTRIBUTES, "COMPUTE_CAPABILITY_MAJOR", 8)
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            with pytest.raises(UnsupportedError, match="sm_90"):
                kit.build_while(3, fold=True, pdl=True)
            kit.build_while(8, fold=True, every=4)[0].close()  # a decision every K needs no PDL


@pytest.mark.parametrize("cuda_version", [12090, 13000])
def test_node_by_node_uses_each_bindings_form(monkeypatch, own_kernels, cuda_version):
    from cugraphlab import Device

    fake = _install(monkeypatch, cuda_version=cuda_version)
    calls = []
    for name in ("cuGraphAddNode", "cuGraphAddNode_v2"):
        orig = getattr(fake, name)

        def spy(*a, _orig=orig, _name=name):
            calls.append(_name)
            return _orig(*a)
        monkeypatch.setattr(fake, name, spy, raising=False)
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            kit.build_while(3, fold=True, pdl=True, how="nodes")[0].close()
    want = "cuGraphAddNode" if cuda_version >= 13000 else "cuGraphAddNode_v2"
    assert calls == [want] * 5  # the conditional node, then the four kernel nodes
    assert fake.add_node_data[-4:] == [[], [PROGRAMMATIC], [PROGRAMMATIC], [PROGRAMMATIC]]


def test_pdl_executables_close_before_the_pdl_modules(pdl_driver):
    from cugraphlab import Device

    fake = pdl_driver
    order = []
    for name, kind in (("cuGraphExecDestroy", "exec"), ("cuModuleUnload", "module")):
        orig = getattr(fake, name)

        def spy(h, _orig=orig, _kind=kind):
            order.append(_kind)
            return _orig(h)
        setattr(fake, name, spy)
    with Device(0) as dev:
        chain, kit = _kit(dev)
        with chain:
            kit.while_exec(3, True, True)
            kit.while_exec(3, True, True, 3 // 3)  # cached: the same key
            order.clear()
        assert order.index("exec") < order.index("module")
    assert not fake.live("graph exec") and not fake.live("module") and not fake.released_twice()


# --- the kernel ---------------------------------------------------------------------------------------------------
def _ptx(options):
    from cugraphlab.core.program import compile_source

    src = (ROOT / "kernels" / "cond_relu.cu").read_text()
    headers = {p.name: p.read_text() for p in (ROOT / "kernels").glob("*.cuh")}
    c = compile_source(src, "cond_relu", arch="sm_90", kind="ptx", headers=headers, options=options)
    return c.image.decode() if isinstance(c.image, bytes) else str(c.image)


def _entry(ptx: str, name: str) -> str:
    start = ptx.index(f".entry {name}(")
    nxt = ptx.find(".entry ", start + 1)
    return ptx[start:nxt if nxt > 0 else len(ptx)]


@pytest.mark.parametrize("variant", ["CGL_PDL", "CGL_PDL_EARLY"])
def test_pdl_cond_relu_waits_before_it_decides(variant):
    ptx = _ptx((f"-D{variant}",))
    for name in ("cond_relu", "cond_relu_step"):
        body = _entry(ptx, name)
        assert "griddepcontrol.wait" in body, name
        wait = body.index("griddepcontrol.wait")
        decide = re.search(r"call(\.uni)?\s*(\(.*?\),\s*)?cudaGraphSetConditional", body)
        assert decide and wait < decide.start(), name
        store = body.find("st.global")
        assert store < 0 or wait < store  # no store before the wait either


def test_plain_cond_relu_has_no_griddepcontrol_and_stamp_builds():
    plain = _ptx(())
    assert "griddepcontrol" not in plain and ".entry cond_relu_step(" in plain
    stamped = _ptx(("-DCGL_STAMP",))  # every kernel takes the stamp pointer: CGL_BEGIN/CGL_END compile here too
    assert "globaltimer" in stamped


# --- the rows, the CLI, the probe ------------------------------------------------------------------------------
def test_measure_while_checks_decide_every_before_the_gpu():
    from cugraphlab.bench.graphs.conditional import measure_while
    from cugraphlab.core.errors import InvalidArgumentError

    for bad in (7, 1, -2):
        with pytest.raises(InvalidArgumentError, match="decide_every"):
            measure_while(0, iters=100, decide_every=bad)


def test_row_names():
    from cugraphlab.bench.graphs.conditional import WHILE_PDL, every_name

    assert WHILE_PDL == "WHILE, folded, PDL edges"
    assert every_name(10, True) == "WHILE, folded, PDL edges, decision every 10 iterations"
    assert every_name(10, False) == "WHILE, folded, decision every 10 iterations"


def test_conditional_command_takes_pdl_and_decide_every():
    from cugraphlab.cli.graphs import add_commands

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    add_commands(sub, argparse.ArgumentParser(add_help=False))
    a = p.parse_args(["conditional", "--pdl", "--decide-every", "10"])
    assert a.pdl is True and a.decide_every == 10
    a = p.parse_args(["conditional"])
    assert a.pdl is False and a.decide_every is None
    with pytest.raises(SystemExit):
        p.parse_args(["conditional", "--decide-every", "0"])


def _probe():
    spec = importlib.util.spec_from_file_location("while_sanitize_probe", ROOT / "benchmarks" /
                                                  "while_sanitize_probe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sanitize_probe_runs_each_body_alone():
    probe = _probe()
    assert probe.parse(["pdl"]) == ("pdl", {"fold": True, "pdl": True, "how": "capture"}, 4096, 5)
    assert probe.parse(["pdl-nodes", "1000003", "30", "10"])[1] == {"fold": True, "pdl": True, "how": "nodes",
                                                                     "every": 10}
    assert probe.parse(["1", "64", "8", "4"])[1] == {"fold": True, "every": 4}
    assert probe.parse(["0"])[1] == {}
    for bad in (["2"], [], ["0", "64", "8", "4"]):
        with pytest.raises(ValueError):
            probe.parse(bad)
