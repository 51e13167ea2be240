"""The views of measure's stream another library's callable gets (bench/measure/streams.py): CuPy's and PyTorch's
new calls where the installed version has them (no DeprecationWarning from CuPy 14's ExternalStream), the old ones
otherwise. Stand-in modules here: what matters is which call is made, with what."""
from __future__ import annotations

import sys
import types
import warnings

import pytest


class _Dev:
    def __init__(self, i):
        self.i = i

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _cupy(new: bool):
    calls = []
    cuda = types.SimpleNamespace(Device=_Dev)

    class Stream:
        pass

    if new:
        def from_external(obj):
            calls.append(("from_external", obj.__cuda_stream__()))
            return "view"

        Stream.from_external = staticmethod(from_external)

    def external(handle, dev):
        warnings.warn("ExternalStream is deprecated", DeprecationWarning, stacklevel=2) if new else None
        calls.append(("ExternalStream", handle, dev))
        return "old view"

    cuda.Stream, cuda.ExternalStream = Stream, external
    return types.SimpleNamespace(cuda=cuda), calls


def _torch(new: bool):
    calls = []
    cuda = types.SimpleNamespace(ExternalStream=lambda h, device: calls.append(("ExternalStream", h)) or "old")
    if new:
        cuda.get_stream_from_external = lambda h, device: calls.append(("get_stream_from_external", h)) or "view"
    return types.SimpleNamespace(cuda=cuda, device=lambda kind, i: (kind, i)), calls


class _S:
    def __cuda_stream__(self):
        return (0, 0x1234)


@pytest.mark.parametrize("new", [True, False])
def test_cupys_view_uses_from_external_where_it_exists(monkeypatch, new):
    from cugraphlab.bench.measure.streams import cupy_stream

    mod, calls = _cupy(new)
    monkeypatch.setitem(sys.modules, "cupy", mod)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        view = cupy_stream(_S(), 0)
    assert calls == ([("from_external", (0, 0x1234))] if new else [("ExternalStream", 0x1234, 0)])
    assert view == ("view" if new else "old view")
    calls.clear()
    cupy_stream(0x99, 1)  # a raw handle too
    assert calls[0][-1] in ((0, 0x99), 1)


@pytest.mark.parametrize("new", [True, False])
def test_torchs_view_uses_get_stream_from_external_where_it_exists(monkeypatch, new):
    from cugraphlab.bench.measure.streams import torch_stream

    mod, calls = _torch(new)
    monkeypatch.setitem(sys.modules, "torch", mod)
    torch_stream(0x1234, 0)
    assert calls == [("get_stream_from_external" if new else "ExternalStream", 0x1234)]
