"""Driver layer, graphs and resource cleanup on a real GPU."""
from __future__ import annotations

import numpy as np
import pytest

from cugraphlab import Chain, Device, NoDeviceError, capture
from cugraphlab.core import device_count
from cugraphlab.core._calls import tracing

pytestmark = pytest.mark.gpu


def test_device_facts(device):
    assert device.name and device.sm_count > 0 and device.total_memory > 1 << 30
    assert device.arch.startswith("sm_") and device.compute_capability[0] >= 5


def test_bad_device_index_is_one_clear_error():
    with pytest.raises(NoDeviceError) as e:
        Device(device_count() + 7)
    assert "there is no CUDA device" in str(e.value)


def test_captured_chain_graph_topology(device, kernels):
    with Chain(device, n=4096, kernels=kernels) as chain:
        g = chain.capture()
        try:
            assert g.node_count == 4
            assert g.node_kinds() == ["KERNEL"] * 4
            topo = g.topology()
            assert topo.nodes == ("KERNEL:add", "KERNEL:mul", "KERNEL:sub", "KERNEL:relu")
            assert topo.edges == ((0, 1), (1, 2), (2, 3))
        finally:
            g.close()


def test_exception_inside_capture_ends_it_and_the_stream_still_works(device, kernels):
    with Chain(device, n=4096, kernels=kernels) as chain:
        with pytest.raises(RuntimeError, match="user error"):
            with capture(chain.stream):
                chain.launches[0]()
                raise RuntimeError("user error")
        assert chain.verify("eager").ok  # the stream is not left capturing
        assert chain.verify("graph").ok


def test_synchronizing_during_capture_is_a_capture_error(device, kernels):
    with Chain(device, n=4096, kernels=kernels) as chain:
        with pytest.raises(Exception):
            with capture(chain.stream, mode="global"):
                chain.launches[0]()
                chain.stream.synchronize()  # not allowed while capturing
        # whatever the driver said, a fresh capture works afterwards
        assert chain.verify("graph").ok


def test_resources_are_freed(device, kernels):
    free0 = device.memory_info()[0]
    for _ in range(5):
        with Chain(device, n=4 << 20, kernels=kernels) as chain:  # 6 buffers x 16 MiB
            chain.graph_exec()
            assert device.memory_info()[0] < free0 - (64 << 20)
    assert abs(device.memory_info()[0] - free0) < 32 << 20
    chain.close()  # closing twice is harmless


def test_exception_midway_in_construction_frees_what_was_made(device, kernels, monkeypatch):
    free0 = device.memory_info()[0]

    def boom(self):
        raise RuntimeError("injected")

    monkeypatch.setattr(Chain, "op_args", boom)  # after the buffers exist, before the launches
    with pytest.raises(RuntimeError, match="injected"):
        Chain(device, n=8 << 20, kernels=kernels)
    assert abs(device.memory_info()[0] - free0) < 32 << 20


def test_trace_shows_capture_instantiate_and_launch(device, kernels):
    with tracing(None) as t:
        with Chain(device, n=1024, kernels=kernels) as chain:
            chain.run("graph", 2)
            chain.stream.synchronize()
    apis = [e.api for e in t.entries]
    for name in ("cuStreamBeginCapture", "cuLaunchKernel", "cuStreamEndCapture", "cuGraphInstantiate",
                 "cuGraphUpload", "cuGraphLaunch"):
        assert name in apis
    assert apis.index("cuStreamBeginCapture") < apis.index("cuStreamEndCapture") < apis.index("cuGraphInstantiate")
    assert apis.count("cuGraphLaunch") == 2 and all(e.result == "CUDA_SUCCESS" for e in t.entries)


def test_kernel_set_warm_load_uses_the_cache(device, tmp_path):
    from cugraphlab.core.cache import Cache

    cache = Cache(tmp_path)
    with device.load_kernels(cache=cache) as cold:
        assert not any(c.cache_hit for c in cold.compiled.values())
    with device.load_kernels(cache=cache) as warm:
        assert all(c.cache_hit for c in warm.compiled.values())
        assert warm["add"].attribute("NUM_REGS") > 0


def test_cli_run_small(tmp_path, capsys):
    from cugraphlab import cli
    from cugraphlab.core.files import read_json

    out = tmp_path / "run.json"
    assert cli.main(["run", "--size", "1000", "--iters", "20", "--repeats", "3", "--unroll", "5",
                     "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "bit-exact" in text and "FAILED" not in text
    rec = read_json(out)
    assert [m["mode"] for m in rec["modes"]] == ["eager", "graph", "graph x5", "fused"]
    assert all(m["verified"] and m["wall_us_per_iter"]["n"] == 3 for m in rec["modes"])
    assert rec["env"]["gpu"]["name"] and rec["config"]["size"] == 1000
    assert np.isfinite([m["wall_us_per_iter"]["median"] for m in rec["modes"]]).all()


def test_kernel_set_reports_registers_of_every_kernel(kernels):
    for name, c in kernels.compiled.items():
        assert c.registers.get(name, 0) > 0, name
