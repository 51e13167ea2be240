"""graphs.device_launch on the fake driver: the node rules as typed errors, instantiate with the device-launch flag,
upload before a kernel may have the handle, and the messages of a failed device-side launch."""
from __future__ import annotations

import pytest


@pytest.fixture
def fake(monkeypatch):
    from fake_devlaunch import install

    return install(monkeypatch)


@pytest.fixture
def dev(fake):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


def _graph_with(dev, fake, kinds):
    from cugraphlab.graphs.exec import Graph

    g = Graph(dev)
    for k in kinds:
        fake.add_foreign_node(g.handle, k)
    return g


@pytest.mark.parametrize("kind", ["HOST", "EVENT_RECORD", "WAIT_EVENT", "MEM_ALLOC", "CONDITIONAL", "EMPTY"])
def test_forbidden_node_kinds_are_named(dev, fake, kind):
    from cugraphlab.graphs.device_launch import DeviceGraphError, check_device_graph

    with _graph_with(dev, fake, ["KERNEL", kind]) as g:
        with pytest.raises(DeviceGraphError, match=rf"node \[1\] is a {kind} node.*kernel, memcpy, memset"):
            check_device_graph(g)


def test_allowed_kinds_and_child_graphs(dev, fake):
    from cugraphlab.graphs.device_launch import DeviceGraphError, check_device_graph
    from cugraphlab.graphs.exec import Graph

    with _graph_with(dev, fake, ["KERNEL", "MEMSET", "MEMCPY"]) as g:
        assert check_device_graph(g) == 3
    with Graph(dev) as parent, _graph_with(dev, fake, ["KERNEL", "HOST"]) as child:
        fake.add_child_graph(parent.handle, child.handle)
        with pytest.raises(DeviceGraphError, match=r"node \[0\] \(child graph\) node \[1\] is a HOST node"):
            check_device_graph(parent)


def test_empty_graph_is_refused(dev, fake):
    from cugraphlab.graphs.device_launch import DeviceGraphError, check_device_graph
    from cugraphlab.graphs.exec import Graph

    with Graph(dev) as g, pytest.raises(DeviceGraphError, match="cannot be empty"):
        check_device_graph(g)


def test_instantiate_with_flag_and_upload(dev, fake):
    from cugraphlab.graphs.device_launch import DeviceGraphError, device_launch_flag, instantiate_for_device_launch

    assert device_launch_flag() == 4
    stream = dev.create_stream()
    with _graph_with(dev, fake, ["KERNEL"]) as g:
        exe = instantiate_for_device_launch(g, stream)
        assert fake.flags[int(exe.handle)] == 4 and int(exe.handle) in fake.uploads
        assert exe.device_handle == int(exe.handle)
        exe.updated()  # an exec update must be uploaded again before a device launch
        with pytest.raises(DeviceGraphError, match="not uploaded"):
            exe.device_handle
        exe.upload(stream)
        assert exe.device_handle == int(exe.handle)
        not_uploaded = instantiate_for_device_launch(g)
        with pytest.raises(DeviceGraphError, match="cuGraphUpload"):
            not_uploaded.device_handle
        not_uploaded.launch(stream)  # a host launch uploads too
        assert not_uploaded.device_handle
        exe.close()
        not_uploaded.close()
    stream.close()
    assert fake.released_twice() == []


def test_refused_instantiate_is_typed(dev, fake, monkeypatch):
    from cugraphlab.graphs.device_launch import DeviceGraphError, instantiate_for_device_launch

    monkeypatch.setattr(fake, "cuGraphInstantiate", lambda g, f: (fake.CUresult.CUDA_ERROR_INVALID_VALUE, None))
    with _graph_with(dev, fake, ["KERNEL"]) as g:
        with pytest.raises(DeviceGraphError, match="CUDA_ERROR_INVALID_VALUE.*kernel, memcpy, memset"):
            instantiate_for_device_launch(g)


def test_device_launch_error_names_the_cuda_error():
    from cugraphlab.graphs.device_launch import DEVICE_STREAMS, DeviceLaunchError, cuda_error_name

    e = DeviceLaunchError(1)
    assert "cudaErrorInvalidValue (1)" in str(e) and "previous launch" in str(e)
    assert cuda_error_name(12345) == "cudaError 12345"
    # the named streams of cuda_device_runtime_api.h
    assert DEVICE_STREAMS == {"tail": 1 << 56, "fire_and_forget": 2 << 56, "sibling": 3 << 56}


@pytest.mark.nvjitlink
def test_gate_needs_a_driver_for_cuda_12(dev, fake):
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.graphs.device_launch import require_device_launch

    assert require_device_launch(dev) == ""  # fake: sm_90, unified addressing, driver 13.0
    with pytest.raises(UnsupportedError, match="CUDA 12.0 or newer"):
        require_device_launch(dev, driver=(11, 8))
