"""A driver function the bindings know and the driver lacks: one UnsupportedError line naming it, in both of the
bindings' forms (cydriver's RuntimeError('Function "cuX" not found'), seen on the H200 with cuda-bindings 13.3.1 on a
CUDA 13.0 driver for cuGraphNodeGetParams, and FunctionNotFoundError("function cuX is not found")); the 12.x
fallbacks to the 12.2 call forms work with either. No GPU: tests/helpers/fake_driver.py."""
from __future__ import annotations

import pytest

from cugraphlab.core import _calls, _door
from cugraphlab.core.errors import MissingDriverFunctionError, UnsupportedError
from fake_driver import FakeDriver


class FunctionNotFoundError(RuntimeError):  # the bindings' generated layers (a RuntimeError subclass)
    pass


def plain_form(name):
    def fn(*args):
        raise RuntimeError(f'Function "{name}" not found')  # cuda/bindings/_bindings/cydriver.pyx
    return fn


def class_form(name):
    def fn(*args):
        raise FunctionNotFoundError(f"function {name} is not found")
    return fn


@pytest.fixture
def fake(monkeypatch):
    f = FakeDriver(driver_version=13000)
    monkeypatch.setattr(_door, "_driver", f)
    return f


@pytest.mark.parametrize("form", [plain_form, class_form])
def test_cu_turns_a_missing_function_into_one_line(fake, form):
    fake.cuGraphNodeGetParams = form("cuGraphNodeGetParams")
    with pytest.raises(MissingDriverFunctionError) as info:
        _calls.cu("cuGraphNodeGetParams", 0x1234)
    e = info.value
    assert isinstance(e, UnsupportedError) and e.function == "cuGraphNodeGetParams"
    text = str(e)
    assert "\n" not in text and text.startswith("cuGraphNodeGetParams: ")
    assert "CUDA 13.0" in text and "newer driver" in text and _calls.bindings_version() in text


def test_other_runtime_errors_pass_through(fake):
    def broken(*args):
        raise RuntimeError("Argument 'kernelParams' failed to retrieve buffer through Buffer Protocol")

    fake.cuGraphKernelNodeSetParams = broken
    with pytest.raises(RuntimeError, match="Buffer Protocol") as info:
        _calls.cu("cuGraphKernelNodeSetParams", 1, 2)
    assert not isinstance(info.value, UnsupportedError)


def test_the_message_survives_a_driver_that_cannot_say_its_version(fake):
    fake.cuGraphNodeGetParams = plain_form("cuGraphNodeGetParams")
    fake.cuDriverGetVersion = plain_form("cuDriverGetVersion")
    with pytest.raises(MissingDriverFunctionError, match="unknown CUDA version"):
        _calls.cu("cuGraphNodeGetParams", 1)


@pytest.mark.parametrize("text, missing", [
    ('Function "cuGraphNodeGetParams" not found', True),
    ("function cuFuncGetName is not found", True),
    ("Function cuGraphAddNode_v2 not found", True),
    ("CUDA_ERROR_NOT_FOUND", False),
    ("named symbol not found", False),
])
def test_missing_in_driver_knows_both_forms_and_nothing_else(text, missing):
    assert _calls._missing_in_driver(RuntimeError(text)) is missing
    assert _calls._missing_in_driver(ValueError(text)) is False


class Recorder:
    def __init__(self, result):
        self.result, self.calls = result, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.result


@pytest.mark.parametrize("form", [plain_form, class_form])
def test_12x_add_node_falls_back_to_the_12_2_form_on_either_error(monkeypatch, form):
    from fake_driver import OK

    f = FakeDriver(driver_version=12020)
    f.CUDA_VERSION = 12090  # 12.x bindings: the _v2 spellings
    plain = Recorder((OK, "n1"))
    f.cuGraphAddNode, f.cuGraphAddNode_v2 = plain, form("cuGraphAddNode_v2")
    monkeypatch.setattr(_door, "_driver", f)
    assert _calls.graph_add_node("g", ["a"], "p") == "n1"
    assert plain.calls == [("g", ["a"], 1, "p")]


@pytest.mark.parametrize("form", [plain_form, class_form])
def test_12x_edges_fall_back_without_edge_data_on_either_error(monkeypatch, form):
    from fake_driver import OK

    f = FakeDriver(driver_version=12020)
    f.CUDA_VERSION = 12090

    def edges(graph, n):
        return (OK, None, None, 1) if n == 0 else (OK, ["a"], ["b"], 1)

    f.cuGraphGetEdges, f.cuGraphGetEdges_v2 = edges, form("cuGraphGetEdges_v2")
    monkeypatch.setattr(_door, "_driver", f)
    assert _calls.graph_edges("g") == [("a", "b", None)]
