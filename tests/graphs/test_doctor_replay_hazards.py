"""The replay watch of cugraphlab's own graphs (graphs.doctor.launches) on a driver that captures: a graph launched on
two streams with nothing ordering them, an async write into its memory unordered with a launch, a refused exec
update with the driver's reason; each with its correct twin, which must give no finding; the site table's counts and
costs; the gallery cases' metadata. No GPU."""
from __future__ import annotations

import ctypes
import gc
import pathlib

import pytest
from cuda.bindings import driver as _real

from capture_driver import CaptureFakeDriver
from cugraphlab.core._calls import cu, observing
from cugraphlab.graphs.capture import capture
from cugraphlab.graphs.doctor import explain_all
from cugraphlab.graphs.doctor.launches import LaunchWatch
from cugraphlab.graphs.doctor.stacks import explain_events, site_stats
from fake_driver import OK, use_driver

THIS = pathlib.Path(__file__).name
R = _real.CUresult


class HazardDriver(CaptureFakeDriver):
    """CaptureFakeDriver plus what the replay watch asks: allocations with sizes (cuMemGetAddressRange), a kernel's
    parameters (cuFuncGetParamInfo: ``params`` 8-byte arguments), graph memory, and updates refused on demand."""

    def __init__(self, params: int = 3):
        super().__init__()
        self.sizes: dict[int, int] = {}
        self.next_address = 0x7F0000000000
        self.reuse = False  # hand freed addresses out again
        self.free_bases: list[int] = []
        self.params = params
        self.refuse = None  # a CUgraphExecUpdateResult to refuse updates with
        self.graph_mem = (1 << 20, 2 << 20)

    def cuMemAlloc(self, nbytes):
        r = super().cuMemAlloc(nbytes)
        if r[0] != OK:
            return r
        reused = [b for b in self.free_bases if self.sizes[b] >= int(nbytes)] if self.reuse else []
        if reused:  # the address handed out again, as a caching allocator or the driver may
            base = reused[0]
            self.free_bases.remove(base)
            self.released[base] = 0
        else:
            base = self.next_address  # an address space of its own: allocations of their real size, apart
            self.next_address += (int(nbytes) + 0xFFFF) & ~0xFFFF
        self.made[base] = "memory"
        self.context_of[base] = self.context_of.get(int(r[1]))
        self.sizes[base] = int(nbytes)
        return (OK, base)

    def cuMemFree(self, h):
        r = super().cuMemFree(h)
        if r[0] == OK:
            self.free_bases.append(int(h))
        return r

    def cuMemGetAddressRange(self, ptr):
        for base, size in self.sizes.items():
            if base <= int(ptr) < base + size:
                return (OK, base, size)
        return (R.CUDA_ERROR_NOT_FOUND, 0, 0)

    def cuFuncGetParamInfo(self, func, index):
        if index >= self.params:
            return (R.CUDA_ERROR_INVALID_VALUE, 0, 0)
        return (OK, 8 * index, 8)

    def cuCtxGetDevice(self):
        return (OK, 0)

    def cuDeviceGetGraphMemAttribute(self, dev, attr):
        used = int(attr) == int(_real.CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)
        return (OK, self.graph_mem[0] if used else self.graph_mem[1])

    def cuGraphExecUpdate(self, exe, graph):
        if self.refuse is None:
            return (OK, _real.CUgraphExecUpdateResultInfo())
        return (R.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, None) if self.refuse == "none" else \
            (R.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, _info(self.refuse))


def _info(result):
    info = _real.CUgraphExecUpdateResultInfo()
    info.result = result
    return info


@pytest.fixture
def drv():
    with use_driver(HazardDriver()) as fake:
        yield fake
    gc.collect()
    assert not observing(), "an observer was left registered"


@pytest.fixture
def dev(drv):
    from cugraphlab import Device

    with Device(0) as d:
        yield d


@pytest.fixture
def kernel(dev):
    from cugraphlab.core.module import Module

    with Module(dev, b"fake image") as m:
        yield m.kernel("twice")


class Params:
    """A kernelParams array as core.args packs one: a pointer per argument to its 8-byte value."""

    def __init__(self, *values):
        self.values = [ctypes.c_uint64(v) for v in values]
        self.pointers = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in self.values])
        self.address = ctypes.addressof(self.pointers)


def launch(kernel, stream, params):
    cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, stream.handle, params.address, 0)


def at(where: str, site: str) -> bool:
    """``where`` ("path/to/file.py:LINE, in f") names ``site`` ("file.py:LINE")."""
    return ("/" + where).split(", in ")[0].endswith("/" + site)


def line_of(text: str) -> int:
    src = pathlib.Path(__file__).read_text().splitlines()
    return next(i + 1 for i, ln in enumerate(src) if text in ln)


class Watched:
    """A LaunchWatch installed for the block, inside explain_all (captures end through the doctor, as under
    ``cugraphlab doctor --replay``); ``.events`` after the block."""

    def __enter__(self):
        self.events = []
        self._explain = explain_all()
        self._explain.__enter__()
        self.watch = LaunchWatch(self.events.append).install()
        return self

    def __exit__(self, *exc):
        self.watch.uninstall()
        self._explain.__exit__(*exc)
        return False


def captured_exec(dev, kernel, s, n=1024):
    x, out = cu("cuMemAlloc", 4 * n), cu("cuMemAlloc", 4 * n)
    params = Params(int(out), int(x), n)
    with capture(s) as cap:  # capture site
        launch(kernel, s, params)
    exe = cap.graph.instantiate()
    return exe, cap.graph, int(x), int(out), params


def hazards(events):
    return [f for d in explain_events(events) for f in d.findings]


# --- launched on two streams --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ordered", [False, True])
def test_a_graph_launched_on_two_streams_unordered_is_named_at_its_capture_site(dev, kernel, ordered):
    a, b, ev = dev.create_stream(), dev.create_stream(), dev.create_event()
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, a)
        for step in range(4):
            s = (a, b)[step % 2]
            exe.launch(s)  # launch here
            if ordered:  # the twin: the next stream waits for this one
                ev.record(s)
                (a, b)[(step + 1) % 2].wait(ev)
        exe.close()
        graph.close()
    found = hazards(w.events)
    if ordered:
        assert found == []
        return
    (f,) = found  # reported once per executable
    site = f"{THIS}:{line_of('with capture(s) as cap:  # capture site')}"
    assert f.kind == "concurrent_launch" and f.call == "cuGraphLaunch" and at(f.where, site)
    assert f"{THIS}:{line_of('exe.launch(s)  # launch here')}" in f.detail
    assert hex(int(b.handle)) in f.detail and hex(int(a.handle)) in f.detail and "not ordered" in f.detail
    assert "event" in f.to_dict()["fix"]


def test_a_host_synchronization_orders_the_launches_too(dev, kernel):
    a, b = dev.create_stream(), dev.create_stream()
    with Watched() as w:
        exe, graph, *_ = captured_exec(dev, kernel, a)
        exe.launch(a)
        a.synchronize()
        exe.launch(b)
        cu("cuCtxSynchronize")
        exe.launch(a)
        exe.close()
        graph.close()
    assert hazards(w.events) == []


# --- its memory written on another stream --------------------------------------------------------------------------
@pytest.mark.parametrize("ordered", [False, True])
def test_an_async_copy_into_the_graphs_input_on_another_stream_races_the_launch(dev, kernel, ordered):
    import numpy as np

    s, copies, ev = dev.create_stream(), dev.create_stream(), dev.create_event()
    host = np.random.default_rng(3).standard_normal(1024).astype(np.float32)
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, s)
        for _ in range(2):
            cu("cuMemcpyHtoDAsync", x + 64, host.ctypes.data, 256, copies.handle)  # upload here
            if ordered:
                ev.record(copies)
                s.wait(ev)
            exe.launch(s)
            s.synchronize()
            copies.synchronize()
        exe.close()
        graph.close()
    found = hazards(w.events)
    if ordered:
        assert found == []
        return
    (f,) = found
    assert f.kind == "input_race" and at(f.where, f"{THIS}:{line_of('# capture site')}")
    assert f"256 bytes at {hex(x + 64)}" in f.detail and f"{THIS}:{line_of('# upload here')}" in f.detail
    assert hex(int(copies.handle)) in f.detail


def test_a_write_while_a_launch_on_another_stream_may_still_run_is_a_race_and_unrelated_memory_is_not(dev, kernel):
    s, other = dev.create_stream(), dev.create_stream()
    elsewhere = int(cu("cuMemAlloc", 4096))
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, s)
        exe.launch(s)
        cu("cuMemsetD32Async", elsewhere, 7, 1024, other.handle)  # not the graph's memory: fine
        assert hazards(list(w.events)) == []
        cu("cuMemsetD32Async", out, 7, 16, other.handle)  # the graph's output, the launch not waited for
        exe.close()
        graph.close()
    (f,) = hazards(w.events)
    assert f.kind == "input_race" and f"64 bytes at {hex(out)}" in f.detail and "not ordered" in f.detail


def test_without_cuFuncGetParamInfo_only_the_captured_copies_are_the_graphs_memory(dev, kernel, drv):
    drv.params = 0
    s, copies = dev.create_stream(), dev.create_stream()
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, s)
        cu("cuMemcpyHtoDAsync", x, 0, 64, copies.handle)
        exe.launch(s)  # the kernel's pointers unknown: no race can be seen
        exe.close()
        graph.close()
    assert hazards(w.events) == []


# --- a refused update ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("refuse", [None, "info", "none"])
def test_a_refused_exec_update_names_the_drivers_reason_and_the_site_table_its_cost(dev, kernel, drv, refuse):
    from cugraphlab.graphs import try_exec_update

    s = dev.create_stream()
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, s)
        drv.refuse = {"info": _real.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED,
                      "none": "none"}.get(refuse)
        for _ in range(3):
            with capture(s) as cap:
                launch(kernel, s, params)
            report = try_exec_update(exe, cap.graph)  # update here
            assert report.updated == (refuse is None)
            cap.graph.close()
            exe.launch(s)
        exe.close()
        graph.close()
    found = hazards(w.events)
    sites = site_stats(w.events)
    (site,) = [t for t in sites if at(t["site"], f"{THIS}:{line_of('# capture site')}")]
    (loop,) = [t for t in sites if t is not site]  # the captures of the updates: a site of their own
    assert (site["captures"], site["instantiations"], site["updates"], site["replays"]) == (1, 1, 3, 3)
    assert (loop["captures"], loop["instantiations"], loop["updates"], loop["replays"]) == (3, 0, 0, 0)
    assert site["update_s"] > 0
    if refuse is None:
        assert found == [] and site["refused"] == 0
        return
    (f,) = found
    assert f.kind == "update_refused" and f.call == "cuGraphExecUpdate"
    assert at(f.where, f"{THIS}:{line_of('# capture site')}")
    assert f"{THIS}:{line_of('# update here')}" in f.detail
    if refuse == "info":
        assert "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED" in f.detail and "other nodes or edges" in f.detail
    else:  # the bindings dropped the info and libcuda is not here to ask again: the status is all there is
        assert "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE" in f.detail
    assert site["refused"] == 3 and len(site["refusals"]) == 3


def test_the_site_table_counts_costs_and_graph_memory_of_a_cugraphlab_site(dev, kernel, drv):
    s = dev.create_stream()
    with Watched() as w:
        exe, graph, *_ = captured_exec(dev, kernel, s)
        for _ in range(5):
            exe.launch(s)
        exe.close()
        graph.close()
    (site,) = site_stats(w.events, eager_us=50.0)
    assert (site["stack"], site["captures"], site["ok"], site["instantiations"], site["replays"]) == \
        ("cugraphlab", 1, 1, 1, 5)
    assert at(site["site"], f"{THIS}:{line_of('# capture site')}")
    assert (site["graph_mem_used"], site["graph_mem_reserved"]) == drv.graph_mem
    # host costs come from the tracer the watch installs: positive, finite figures
    assert site["capture_s"] > 0 and site["instantiate_s"] > 0 and site["replay_s"] > 0
    assert site["verdict"] and site["eager_us"] == 50.0
    assert not observing()
    from cugraphlab.core._calls import tracer

    assert tracer() is None  # the watch's tracer is gone with it


# --- the command line -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["doctor", "--eager-us", "40", "x.py"], "--eager-us is for --replay"),
    (["doctor", "--replay", "--eager-us", "0", "x.py"], "a number > 0, got '0'"),
    (["doctor", "--replay", "--eager-us", "nan", "x.py"], "a number > 0, got 'nan'"),
    (["doctor", "--replay", "--gallery"], "--replay and --eager-us watch a script"),
    (["doctor", "--eager-us", "3", "--gallery", "field"], "--replay and --eager-us watch a script"),
])
def test_bad_replay_options_are_one_line_and_exit_2(argv, words, capsys):
    from cugraphlab.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) <= 3


# --- the ordering model alone -----------------------------------------------------------------------------------------
def test_the_order_of_streams_follows_events_waits_and_host_waits():
    from cugraphlab.graphs.doctor.order import StreamOrder

    o = StreamOrder()
    a1 = (0xA, o.enqueue(0xA))
    assert not o.ordered(a1, 0xB) and o.ordered(a1, 0xA)
    o.record(7, 0xA)
    a2 = (0xA, o.enqueue(0xA))  # after the record: not covered by it
    o.wait(0xB, 7)
    assert o.ordered(a1, 0xB) and not o.ordered(a2, 0xB)
    o.event_done(7)  # the host saw the event: a1 is before everything later, anywhere
    assert o.ordered(a1, 0xC) and not o.ordered(a2, 0xC)
    o.stream_done(0xA)
    assert o.ordered(a2, 0xC)
    c1 = (0xC, o.enqueue(0xC))
    assert not o.ordered(c1, 0xA)
    o.enqueue(0)  # work on the legacy stream: a host wait for everything queued so far
    assert o.ordered(c1, 0xA) and o.ordered(c1, 0xB)
    d1 = (0xD, o.enqueue(0xD))
    o.host_wait_all()  # cuCtxSynchronize
    assert o.ordered(d1, 0xA)


# --- a captured buffer freed, or its address handed out again --------------------------------------------------------
@pytest.mark.parametrize("what", ["freed", "reallocated", "refilled"])
def test_a_captured_pointer_no_longer_in_its_allocation_is_named_and_refilling_it_is_fine(dev, kernel, drv, what):
    import numpy as np

    drv.reuse = what == "reallocated"
    s = dev.create_stream()
    new = np.random.default_rng(5).standard_normal(1024).astype(np.float32)
    with Watched() as w:
        exe, graph, x, out, params = captured_exec(dev, kernel, s)
        exe.launch(s)
        if what == "refilled":  # the twin: new data into the captured buffer
            cu("cuMemcpyHtoDAsync", x, new.ctypes.data, new.nbytes, s.handle)
        else:
            cu("cuMemFree", x)  # freed here
            if what == "reallocated":
                y = int(cu("cuMemAlloc", 4096))  # allocated again here
                assert y == x  # the same address, another allocation
        exe.launch(s)  # relaunched here
        exe.close()
        graph.close()
    found = hazards(w.events)
    if what == "refilled":
        assert found == []
        return
    (f,) = found
    assert f.kind == "stale_input" and f.call == "cuGraphLaunch" and at(f.where, f"{THIS}:{line_of('# capture site')}")
    assert f"{hex(x)} (4096 bytes at the capture)" in f.detail and f"{THIS}:{line_of('# relaunched here')}" in f.detail
    if what == "freed":
        assert f"{THIS}:{line_of('# freed here')}: no live allocation holds it" in f.detail
    else:
        assert "now lies in another allocation, made at " in f.detail
        assert f"{THIS}:{line_of('# allocated again here')} after the capture" in f.detail


@pytest.mark.parametrize("explain", [True, False])  # ended by the doctor, or through the door
def test_a_failed_capture_leaves_its_stream_a_plain_stream_again(dev, kernel, explain):
    from cugraphlab.core.errors import CaptureError

    s = dev.create_stream()
    with Watched() as w:
        with pytest.raises(CaptureError):
            with capture(s, explain=explain):
                cu("cuStreamSynchronize", s.handle)  # refused: the capture is invalidated
        assert w.watch.capturing == {}
        exe, graph, *_ = captured_exec(dev, kernel, s)
        exe.launch(s)
        exe.close()
        graph.close()
    (site,) = [t for t in site_stats(w.events) if t["replays"]]
    assert (site["captures"], site["replays"]) == (1, 1)


def test_graph_memory_allocated_and_freed_inside_the_capture_is_not_a_freed_buffer(dev, kernel, drv):
    def alloc_async(nbytes, stream):  # a graph memory node's address (captured: no allocation now)
        base, drv.next_address = drv.next_address, drv.next_address + 0x10000
        drv.sizes[base] = int(nbytes)
        return (OK, base)

    drv.cuMemAllocAsync = alloc_async
    drv.cuMemFreeAsync = lambda ptr, stream: (OK,)
    s = dev.create_stream()
    with Watched() as w:
        with capture(s) as cap:
            tmp = int(cu("cuMemAllocAsync", 4096, s.handle))
            launch(kernel, s, Params(tmp, tmp, 1024))
            cu("cuMemFreeAsync", tmp, s.handle)
        exe = cap.graph.instantiate()
        exe.launch(s)
        exe.launch(s)
        exe.close()
        cap.graph.close()
    assert hazards(w.events) == [] and w.watch.allocs.freed == {}


def test_cugraphlab_doctor_replay_names_the_hazard_and_prints_the_site_table(drv, tmp_path, capsys):
    import textwrap

    from cugraphlab.cli import main

    script = tmp_path / "two_streams.py"
    script.write_text(textwrap.dedent('''
        import ctypes
        import cugraphlab as cgl
        from cugraphlab.core.module import Module
        from cugraphlab.graphs import capture

        with cgl.Device(0) as dev, Module(dev, b"fake image") as m:
            a, b = dev.create_stream(), dev.create_stream()
            x, out = cgl.cu("cuMemAlloc", 4096), cgl.cu("cuMemAlloc", 4096)
            values = [ctypes.c_uint64(int(out)), ctypes.c_uint64(int(x)), ctypes.c_uint64(1024)]
            slots = (ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in values])
            with capture(a) as cap:
                cgl.cu("cuLaunchKernel", m.kernel("twice").handle, 1, 1, 1, 1, 1, 1, 0, a.handle,
                       ctypes.addressof(slots), 0)
            exe = cap.graph.instantiate()
            for s in (a, b, a):
                exe.launch(s)
            exe.close()
            cap.graph.close()
    '''))
    assert main(["doctor", "--replay", "--eager-us", "1000000", str(script)]) == 0
    out = capsys.readouterr().out
    assert "a graph launched on two streams with nothing ordering the launches" in out
    assert f"{script.name}:12" in out and "replay watch (host clock: perf_counter_ns" in out
    assert "cugraphlab" in out and "has paid off" in out  # 1 s of eager work: one replay repays it
