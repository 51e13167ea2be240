"""cuda-bindings 12 vs 13: the start-up check, the feature gates and the calls whose form differs (CPU only).

The driver is stubbed (no GPU here: cuInit cannot run), the bindings' major where a test needs the other one.
"""
from types import SimpleNamespace

import pytest

from cugraphlab.core import _calls, _compat, _door, device
from cugraphlab.core.errors import DriverMismatchError, NoDeviceError, UnsupportedError


def fake_driver(monkeypatch, *, bindings=(13, 5), driver=(12, 4), nvrtc=None, **fns):
    """Replace the bindings' driver module with a stub speaking CUDA ``bindings``, on a driver for ``driver``,
    and NVRTC's version with ``nvrtc`` (default: the bindings' own)."""
    nvrtc = nvrtc or bindings
    monkeypatch.setattr(_door, "nv", lambda name, *args: nvrtc if name == "nvrtcVersion" else 1 / 0)
    mod = SimpleNamespace(CUDA_VERSION=bindings[0] * 1000 + bindings[1] * 10, CUgraphEdgeData=lambda: "plain edge",
                          cuInit=lambda flags: (0,),
                          cuDriverGetVersion=lambda: (0, driver[0] * 1000 + driver[1] * 10), **fns)
    monkeypatch.setattr(_door, "driver_module", lambda: mod)
    monkeypatch.setattr(_compat, "bindings_version", lambda: "%d.%d.0" % bindings)
    monkeypatch.setattr(device, "_initialised", False)
    return mod


# --- which major is installed ---------------------------------------------------------------------------------------
def test_bindings_major_is_the_installed_one():
    from cuda import bindings
    from cuda.bindings import driver

    assert _calls.bindings_major() == int(bindings.__version__.split(".")[0]) == driver.CUDA_VERSION // 1000
    assert _calls.bindings_major() in (12, 13)


# --- the start-up check ---------------------------------------------------------------------------------------------
def test_cu13_bindings_on_a_12_driver_name_the_cu12_extra(monkeypatch):
    fake_driver(monkeypatch, bindings=(13, 5), driver=(12, 4))
    with pytest.raises(DriverMismatchError) as e:
        device.init()  # cuInit succeeds, then the check refuses
    msg = str(e.value)
    assert isinstance(e.value, NoDeviceError)  # the CLI prints NoDeviceError as one line and exits 2
    assert "pip install 'cugraphlab[cu12]'" in msg
    assert "cuda-bindings 13.5.0" in msg and "CUDA 12.4" in msg
    assert "\n" not in msg
    assert device._initialised is False  # the next call checks again


@pytest.mark.parametrize("bindings,driver", [((12, 9), (13, 0)), ((12, 9), (12, 2)), ((13, 5), (13, 0)),
                                             ((13, 0), (13, 2))])
def test_bindings_no_newer_than_the_driver_are_fine(monkeypatch, bindings, driver):
    fake_driver(monkeypatch, bindings=bindings, driver=driver)
    device.init()
    assert device._initialised


def test_nvrtc_13_left_beside_cu12_bindings_on_a_12_driver(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9), driver=(12, 4), nvrtc=(13, 5))
    with pytest.raises(DriverMismatchError, match=r"NVRTC 13\.5 .* pip uninstall nvidia-cuda-nvrtc"):
        device.init()
    fake_driver(monkeypatch, bindings=(12, 9), driver=(13, 0), nvrtc=(13, 5))
    device.init()  # a CUDA 13 driver loads what NVRTC 13 makes


def test_a_driver_older_than_cuda_12_is_refused_with_update_advice(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9), driver=(11, 8))
    with pytest.raises(DriverMismatchError, match=r"supports CUDA 11\.8.*update the driver"):
        device.init()


def test_the_check_with_the_real_bindings_and_a_stubbed_driver(monkeypatch):
    monkeypatch.setattr(_compat, "driver_cuda_version", lambda: (12, 8))
    if _calls.bindings_major() >= 13:
        with pytest.raises(DriverMismatchError, match=r"cugraphlab\[cu12\]"):
            _calls.check_driver_matches_bindings()
    else:
        _calls.check_driver_matches_bindings()
    _calls.check_driver_matches_bindings((13, 0))  # either major runs on a CUDA 13 driver


# --- feature gates --------------------------------------------------------------------------------------------------
def test_conditional_nodes_need_driver_12_3():
    with pytest.raises(UnsupportedError, match=r"conditional graph nodes: needs a driver for CUDA 12\.3 .* 12\.2"):
        _calls.require_conditional(driver=(12, 2))
    _calls.require_conditional(driver=(12, 3))  # the installed bindings have every name it needs


def test_conditional_nodes_need_the_api_in_the_bindings(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 2), cuGraphConditionalHandleCreate=None)
    with pytest.raises(UnsupportedError, match="cuGraphAddNode_v2"):
        _calls.require_conditional(driver=(13, 0))


def test_pdl_needs_sm_90():
    with pytest.raises(UnsupportedError, match=r"programmatic dependent launch: needs sm_90 .* sm_75$"):
        _calls.require_pdl((7, 5), "sm_75")
    _calls.require_pdl((9, 0))
    with pytest.raises(UnsupportedError, match=r"in graphs: needs a driver for CUDA 12\.3"):
        _calls.require_pdl((9, 0), graphs=True, driver=(12, 2))


def test_func_name_falls_back_when_the_driver_lacks_it(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9), cuFuncGetName=missing)
    assert _calls.func_name(object()) is None
    fake_driver(monkeypatch, bindings=(12, 9), cuFuncGetName=lambda f: (0, b"add"))
    assert _calls.func_name(object()) == "add"
    fake_driver(monkeypatch, bindings=(12, 9), cuFuncGetName=lambda f: (500, None))
    assert _calls.func_name(object()) is None


# --- the calls whose form differs: dispatch -------------------------------------------------------------------------
class Recorder:
    def __init__(self, result):
        self.calls, self.result = [], result

    def __call__(self, *args):
        self.calls.append(args)
        return self.result


def test_add_node_13_passes_edge_data(monkeypatch):
    add = Recorder((0, "node"))
    fake_driver(monkeypatch, bindings=(13, 5), cuGraphAddNode=add)
    assert _calls.graph_add_node("g", ["a"], "p") == "node"
    assert _calls.graph_add_node("g", ["a"], "p", ["e"]) == "node"
    assert add.calls == [("g", ["a"], None, 1, "p"), ("g", ["a"], ["e"], 1, "p")]


def test_add_node_12_uses_v2(monkeypatch):
    v2, plain = Recorder((0, "n2")), Recorder((0, "n1"))
    fake_driver(monkeypatch, bindings=(12, 9), cuGraphAddNode=plain, cuGraphAddNode_v2=v2)
    assert _calls.graph_add_node("g", [], "p") == "n2"
    assert _calls.graph_add_node("g", ["a"], "p", ["e"]) == "n2"
    assert _calls.graph_add_node("g", ["a", "b"], "p") == "n2"  # 12.x's binding wants data for every dependency
    assert v2.calls == [("g", None, None, 0, "p"), ("g", ["a"], ["e"], 1, "p"),
                        ("g", ["a", "b"], ["plain edge", "plain edge"], 2, "p")] and not plain.calls


class FunctionNotFoundError(RuntimeError):  # how the bindings say the driver lacks a function
    pass


def missing(*args):
    raise FunctionNotFoundError("function is not found")


def test_add_node_12_on_a_12_2_driver_falls_back_without_edge_data(monkeypatch):
    plain = Recorder((0, "n1"))
    fake_driver(monkeypatch, bindings=(12, 9), cuGraphAddNode=plain, cuGraphAddNode_v2=missing)
    assert _calls.graph_add_node("g", ["a"], "p") == "n1"
    assert plain.calls == [("g", ["a"], 1, "p")]
    with pytest.raises(UnsupportedError, match="edges with data"):
        _calls.graph_add_node("g", ["a"], "p", ["e"])


def test_add_node_12_other_failures_are_not_swallowed(monkeypatch):
    def broken(*args):
        raise RuntimeError("something else")

    fake_driver(monkeypatch, bindings=(12, 9), cuGraphAddNode=Recorder((0, "n1")), cuGraphAddNode_v2=broken)
    with pytest.raises(RuntimeError, match="something else"):
        _calls.graph_add_node("g", ["a"], "p")


def test_add_node_checks_edge_data_length():
    with pytest.raises(ValueError):
        _calls.graph_add_node("g", ["a", "b"], "p", ["e"])


def edges_fn(rows, with_data):
    """A stub of cuGraphGetEdges in either shape: count first, then the arrays."""
    def fn(graph, n):
        if n == 0:
            return (0, None, None, None, len(rows)) if with_data else (0, None, None, len(rows))
        src, dst = [r[0] for r in rows], [r[1] for r in rows]
        return (0, src, dst, [r[2] for r in rows], len(rows)) if with_data else (0, src, dst, len(rows))
    return fn


DEFAULT, PROGRAMMATIC = SimpleNamespace(type=0, from_port=0, to_port=0), SimpleNamespace(type=1, from_port=1, to_port=0)
ROWS = [("a", "b", DEFAULT), ("b", "c", PROGRAMMATIC)]


def test_edges_13(monkeypatch):
    fake_driver(monkeypatch, bindings=(13, 5), cuGraphGetEdges=edges_fn(ROWS, True))
    assert _calls.graph_edges("g") == ROWS


def test_edges_12_prefer_v2(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9), cuGraphGetEdges=edges_fn(ROWS, False),
                cuGraphGetEdges_v2=edges_fn(ROWS, True))
    assert _calls.graph_edges("g") == ROWS


def test_edges_12_on_a_12_2_driver_have_no_data(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9), cuGraphGetEdges=edges_fn(ROWS[:1], False), cuGraphGetEdges_v2=missing)
    assert _calls.graph_edges("g") == [("a", "b", None)]


def test_edges_of_an_empty_graph(monkeypatch):
    fake_driver(monkeypatch, bindings=(13, 5), cuGraphGetEdges=edges_fn([], True))
    assert _calls.graph_edges("g") == []


# --- the same calls against the real bindings: the arguments fit (only the missing libcuda stops them) ---------------
def _reaches_the_driver(call):
    """True when the real binding took the arguments and failed only for want of a driver (no TypeError)."""
    try:
        call()
    except TypeError:
        raise
    except (RuntimeError, NoDeviceError) as e:  # DynamicLibNotFoundError without libcuda, or a CUresult
        return True if "cuda" in str(e).lower() or isinstance(e, NoDeviceError) else pytest.fail(str(e))
    return True  # a machine with a driver: the call went through and returned an error code


def test_real_add_node_and_get_edges_take_these_arguments():
    from cuda.bindings import driver as d

    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    assert _reaches_the_driver(lambda: _calls.graph_add_node(d.CUgraph(0), [], p))
    data = [d.CUgraphEdgeData()]
    assert _reaches_the_driver(lambda: _calls.graph_add_node(d.CUgraph(0), [d.CUgraphNode(0)], p, data))
    # a dependency without edge data (how conditional nodes are added): 12.x's binding refused None here
    assert _reaches_the_driver(lambda: _calls.graph_add_node(d.CUgraph(0), [d.CUgraphNode(0)], p))
    assert _reaches_the_driver(lambda: _calls.graph_edges(d.CUgraph(0)))


def test_real_wrong_arity_is_a_type_error():
    """The probe above can tell: the other major's argument list is refused before the driver is looked for."""
    from cuda.bindings import driver as d

    if _calls.bindings_major() >= 13:
        with pytest.raises(TypeError):
            d.cuGraphAddNode(d.CUgraph(0), None, 0, d.CUgraphNodeParams())
    else:
        with pytest.raises(TypeError):
            d.cuGraphAddNode(d.CUgraph(0), None, None, 0, d.CUgraphNodeParams())


# --- versions_fit: the record `cugraphlab info` shows ---------------------------------------------------------------
def test_versions_fit_names_the_mismatch(monkeypatch):
    fake_driver(monkeypatch, bindings=(13, 5))
    r = _calls.versions_fit(driver=(12, 4), nvrtc=(13, 5))
    assert r["fit"] is False and r["extra_for_driver"] == "cu12" and r["bindings_major"] == 13
    assert r["problems"] and "cugraphlab[cu12]" in r["problems"][0]


def test_versions_fit_accepts_cu12_on_a_13_driver(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9))
    r = _calls.versions_fit(driver=(13, 0), nvrtc=(12, 9))
    assert r == {"bindings": "12.9.0", "bindings_cuda": "12.9", "bindings_major": 12, "nvrtc": "12.9",
                 "driver_cuda": "13.0", "extra_for_driver": "cu13", "fit": True, "problems": []}


def test_versions_fit_flags_nvrtc_of_another_major(monkeypatch):
    fake_driver(monkeypatch, bindings=(12, 9))
    r = _calls.versions_fit(driver=(13, 0), nvrtc=(13, 5))
    assert r["fit"] is False and "NVRTC 13.5" in r["problems"][0] and "fresh venv" in r["problems"][0]


def test_versions_fit_without_a_driver_does_not_judge():
    r = _calls.versions_fit()  # no libcuda here: the driver part is unknown, the rest is real
    assert r["bindings_major"] == _calls.bindings_major()
    assert r["nvrtc"].split(".")[0] == str(_calls.bindings_major())  # the [all] extra brings NVRTC of the same major
    if r["driver_cuda"] is None:
        assert r["fit"] is None
