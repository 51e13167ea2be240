"""The device hold (bench.hold, the package's one) on a fake driver: engaged, timed, released, by mapped memory or by
a memset on another stream; a kernel that never starts, or that lets go by its timeout, is reported and never leaves
the stream held (no GPU needed)."""
from __future__ import annotations

import ctypes
import pathlib

import pytest

from cugraphlab.core.errors import CugraphlabError, InvalidArgumentError
from cugraphlab.core.module import Kernel
from fake_driver import patch_driver


class Kernels(dict):
    pass


@pytest.fixture
def setup(monkeypatch):
    from cugraphlab.core.device import Device
    from graph_fake import GraphFakeDriver

    fake = GraphFakeDriver()
    patch_driver(monkeypatch, fake)
    ks = Kernels(hold=Kernel(None, "hold", 0x51), stamp=Kernel(None, "stamp", 0x52))
    with Device(0) as dev, dev.create_stream() as s:
        yield fake, dev, ks, s


def _arg(params, i: int) -> int:
    slot = ctypes.cast(int(params), ctypes.POINTER(ctypes.c_void_p))[i]
    return ctypes.c_uint64.from_address(slot).value


def _ctl(params):
    return (ctypes.c_uint64 * 8).from_address(_arg(params, 0))


def test_a_hold_is_released_and_reads_the_device_clock(setup):
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup
    state = {}

    def on_launch(func, stream, params):
        if func == 0x51:
            state["ctl"] = c = _ctl(params)
            c[1] = 1

    fake.on_launch = on_launch
    real_sync = fake.cuStreamSynchronize

    def sync(h):
        c = state.get("ctl")
        if c is not None:
            assert c[0] == 1, "synchronized before releasing"
            c[3], c[5] = 5000, 5000 + 8 * 1500
        return real_sync(h)

    fake.cuStreamSynchronize = sync
    with DeviceHold(dev, ks, s) as hold:
        r = hold.time_graph_launches(0x99, 8)
        assert r.launches == 8 and not r.timed_out and r.device_us == pytest.approx(1.5)
        assert r.host_us > 0 and hold.was_released and not hold.engaged
        assert len(fake.graph_launches) == 8
        with pytest.raises(InvalidArgumentError):
            hold.time_graph_launches(0x99, 65)  # at most 64 graphs queued behind one hold
    assert fake.live("host memory") == []


def test_a_timed_out_hold_is_flagged(setup):
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup

    def on_launch(func, stream, params):
        if func == 0x51:
            c = _ctl(params)
            c[1], c[3], c[4] = 1, 100, 1  # it let go by itself
    fake.on_launch = on_launch
    with DeviceHold(dev, ks, s) as hold:
        r = hold.time_graph_launches(0x99, 4)
        assert r.timed_out


def test_a_hold_that_never_starts_is_an_error_and_is_released(setup):
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup
    with DeviceHold(dev, ks, s, start_deadline_s=0.05) as hold:
        with pytest.raises(CugraphlabError, match="did not start"):
            hold.time_graph_launches(0x99, 4)
        assert hold.slots[0] == 1 and not hold.engaged  # the flag is set: a late kernel exits at once
        assert fake.graph_launches == []


def test_hold_kernel_source_compiles_for_several_archs():
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    src = (pathlib.Path(__file__).resolve().parents[2] / "kernels" / "hold.cu").read_text()
    for arch in ("sm_75", "sm_90"):
        c = compile_source(src, "hold", arch=arch, kind="cubin", headers={}, cache=Cache(None))
        assert c.image[:4] == b"\x7fELF"


def test_the_kernel_waits_on_the_mapped_flag_and_held_reports_how_it_ended(setup):
    """mapped: the kernel's third argument is the low word of ctl[0], which the host sets to let go; ``held()``
    holds around any code and reports the release and the spin time."""
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup
    seen = []

    def on_launch(func, stream, params):
        if func == 0x51:
            c = _ctl(params)
            seen.append((_arg(params, 0), _arg(params, 1), _arg(params, 2), int(c[0])))
            c[1], c[2], c[3] = 1, 1_000, 41_000

    fake.on_launch = on_launch
    with DeviceHold(dev, ks, s, timeout_ms=50) as hold:
        ctl_dev = hold.device_ptr
        assert seen[0] == (ctl_dev, 50_000_000, ctl_dev, 1)  # the warm-up launch runs released
        with hold.held() as r:
            assert hold.engaged and seen[-1][3] == 0  # engaged: the flag was cleared before the launch
        assert not hold.engaged and hold.slots[0] == 1
        assert r["report"].released and r["report"].spun_ns == 40_000
        assert hold.check_released().released


def test_memset_release_writes_a_device_flag_on_another_stream(setup, monkeypatch):
    """memset: the flag is a device word, cleared on the held stream before the kernel and set on ANOTHER stream
    to let go (both streams drained after)."""
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup
    memsets, syncs, args = [], [], []
    real_sync = fake.cuStreamSynchronize
    monkeypatch.setattr(fake, "cuMemsetD32Async",
                        lambda dst, value, count, stream: memsets.append((int(dst), value, count, int(stream)))
                        or (0,), raising=False)

    def sync(h):
        syncs.append(int(h))
        return real_sync(h)

    monkeypatch.setattr(fake, "cuStreamSynchronize", sync)

    def on_launch(func, stream, params):
        if func == 0x51:
            args.append(_arg(params, 2))
            _ctl(params)[1] = 1

    fake.on_launch = on_launch
    with DeviceHold(dev, ks, s, release="memset") as hold:
        flag, other = int(hold.flag.ptr), int(hold.other.handle)
        assert args == [flag] and flag != hold.device_ptr
        assert memsets == [(flag, 1, 1, int(s.handle))]  # the warm-up launch, released
        memsets.clear()
        syncs.clear()
        with hold.held():
            assert memsets == [(flag, 0, 1, int(s.handle))]  # cleared, in order before the kernel
        assert memsets[-1] == (flag, 1, 1, other) and syncs == [int(s.handle), other]
        assert hold.slots[0] == 0  # the mapped slot is not the flag here
    assert fake.live("host memory") == [] and fake.live("stream") == [int(s.handle)]


def test_bad_settings_are_refused(setup):
    from cugraphlab.bench.probes.hold import DeviceHold

    fake, dev, ks, s = setup
    with pytest.raises(InvalidArgumentError, match="release must be one of mapped, memset"):
        DeviceHold(dev, ks, s, release="telepathy")
    with pytest.raises(InvalidArgumentError, match="timeout"):
        DeviceHold(dev, ks, s, timeout_ms=0)
    assert fake.live("host memory") == []
