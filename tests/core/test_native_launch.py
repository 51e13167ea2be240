"""core.native_launch on the CPU: the C fire() calls a fake cuLaunchKernel / cuGraphLaunch written in C.

What must hold: every argument reaches the driver function exactly (function, grid, block, shared bytes, stream, the
kernelParams pointer and what it points to, extra NULL); a nonzero CUresult becomes the typed error naming it; the
returned object's reference count does not drift over 10,000 calls (success and failure); the GIL is held unless
asked otherwise; close() twice, dropped without close, collected.
"""
from __future__ import annotations

import gc
import shutil
import sys
import threading
import time
import weakref

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CaptureError, CudaError, CugraphlabError, InvalidArgumentError, UnsupportedError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return Cache(tmp_path_factory.mktemp("native-launch-cache"))


@pytest.fixture(scope="module")
def fake_module(cache):
    from native_launch_fake import NativeLaunchFakeDriver

    return NativeLaunchFakeDriver(cache)


@pytest.fixture
def fake(fake_module):
    fake_module.reset()
    return fake_module


def _raw(fake, cache, **kw):
    from cugraphlab.core.native_launch import NativeLaunch

    args = kw.pop("args", None)
    base = dict(launch_kernel=fake.launch, function=0x1234, stream=0x5678, params=args.address if args else 0,
                grid=(7, 2, 3), block=(256, 1, 2), shared_bytes=48, keep=(args,) if args else (), cache=cache)
    base.update(kw)
    return NativeLaunch.from_raw(**base)


def test_every_argument_reaches_the_driver_function(fake, cache):
    from cugraphlab.core.launch import PackedArgs

    args = PackedArgs(("u64", "u64", "f32"), (0xABCDEF0123, 3, 1.5))
    nl = _raw(fake, cache, args=args)
    assert nl.fire() is None
    r = fake.rec
    assert r.calls == 1
    assert (r.f, tuple(r.dims), r.stream, r.params, r.extra) == (
        0x1234, (7, 2, 3, 256, 1, 2, 48), 0x5678, args.address, None)
    assert r.first_slot == 0xABCDEF0123  # the kernelParams array itself arrived: the driver reads through it
    args.set(0, 0x42)  # the array is the PackedArgs' own: a rewrite shows at the next launch
    nl()
    assert r.calls == 2 and r.first_slot == 0x42
    for _ in range(998):
        nl.fire()
    assert r.calls == 1000 and nl.failures == 0 and nl.status == 0
    with pytest.raises(TypeError):
        nl.fire(1)  # METH_NOARGS
    assert r.calls == 1000
    nl.close()


def test_a_launch_object_is_taken_apart_exactly(fake, cache):
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs

    class Handle:
        def __init__(self, v):
            self.v = v

        def __int__(self):
            return self.v

    class Kernel:
        name = "add"
        handle = Handle(0xF00D)

    class Stream:
        handle = Handle(0xBEEF)

    launch = Launch.__new__(Launch)  # no binding needed: NativeLaunch reads kernel, stream, config and args only
    launch.kernel, launch.stream = Kernel(), Stream()
    launch.config = LaunchConfig((9, 1, 1), (128, 2, 1), 16)
    launch.args = PackedArgs(("ptr", "u64"), (0x7777, 5))
    from cugraphlab.core.native_launch import NativeLaunch

    nl = NativeLaunch(launch, launch_kernel=fake.launch, cache=cache)
    nl.fire()
    r = fake.rec
    assert (r.f, tuple(r.dims), r.stream, r.params) == (0xF00D, (9, 1, 1, 128, 2, 1, 16), 0xBEEF,
                                                          launch.args.address)
    assert r.first_slot == 0x7777 and nl.launch is launch
    assert "add" in repr(nl)
    nl.close()
    assert "closed" in repr(nl)


def test_programmatic_and_non_launch_inputs_are_refused(cache, fake):
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs
    from cugraphlab.core.native_launch import NativeLaunch

    launch = Launch.__new__(Launch)
    launch.config = LaunchConfig(1, 32, programmatic=True)
    launch.args = PackedArgs((), ())
    with pytest.raises(UnsupportedError, match="cuLaunchKernelEx"):
        NativeLaunch(launch, launch_kernel=fake.launch, cache=cache)
    with pytest.raises(InvalidArgumentError):
        NativeLaunch("not a launch", launch_kernel=fake.launch, cache=cache)
    with pytest.raises(InvalidArgumentError):
        _raw(fake, cache, grid=(0, 1, 1))
    with pytest.raises(InvalidArgumentError):
        _raw(fake, cache, launch_kernel=0)
    assert fake.rec.calls == 0


@pytest.mark.parametrize("status, cls, name", [(700, CudaError, "CUDA_ERROR_ILLEGAL_ADDRESS"),
                                               (1, CudaError, "CUDA_ERROR_INVALID_VALUE"),
                                               (900, CaptureError, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")])
def test_a_failing_launch_raises_the_typed_error_naming_it(fake, cache, status, cls, name):
    nl = _raw(fake, cache)
    fake.rec.status = status
    with pytest.raises(cls) as e:
        nl.fire()
    assert e.value.code == status and e.value.name == name and "cuLaunchKernel (native)" in str(e.value)
    assert nl.status == status and nl.failures == 1
    fake.rec.status = 0
    assert nl.fire() is None and fake.rec.calls == 2 and nl.failures == 1
    nl.close()


def test_an_unknown_status_keeps_its_number(fake, cache):
    nl = _raw(fake, cache)
    fake.rec.status = 123456
    with pytest.raises(CudaError) as e:
        nl.fire()
    assert e.value.code == 123456 and "123456" in str(e.value)


class Token:
    """A result object whose reference count is not immortal on any Python version (None is, from 3.12)."""


def test_refcounts_do_not_drift_over_10000_calls(fake, cache):
    token = Token()
    nl = _raw(fake, cache, returns=token)
    fire = nl.fire
    assert fire() is token
    before = sys.getrefcount(token)
    for _ in range(10_000):
        fire()
    assert sys.getrefcount(token) == before
    kept = [fire() for _ in range(100)]  # each call hands out one new reference
    assert sys.getrefcount(token) == before + 100
    del kept
    assert sys.getrefcount(token) == before
    none_before = sys.getrefcount(None)
    plain = _raw(fake, cache)
    for _ in range(10_000):
        plain.fire()
    assert abs(sys.getrefcount(None) - none_before) < 1000  # 3.10/3.11: a missing Py_IncRef would show -10,000
    fake.rec.status = 2
    fire_refs, token_refs = sys.getrefcount(fire), sys.getrefcount(token)
    for _ in range(10_000):
        try:
            fire()
        except CudaError:
            pass
    assert nl.failures == 10_000
    assert sys.getrefcount(fire) == fire_refs and sys.getrefcount(token) == token_refs


def test_close_twice_then_fire_raises_and_does_not_launch(fake, cache):
    with _raw(fake, cache) as nl:
        nl.fire()
    assert nl.closed
    nl.close()
    with pytest.raises(CugraphlabError, match="closed"):
        nl.fire()
    assert fake.rec.calls == 1 and nl.status == -1


def test_fire_outlives_its_owner_safely(fake, cache):
    """A fire kept after its NativeLaunch is dropped: the struct is alive (the capsule holds it), the finalizer
    marked it closed, so the call raises instead of launching or touching freed memory."""
    from cugraphlab.core.launch import PackedArgs

    fire = _raw(fake, cache, args=PackedArgs(("u64",), (9,))).fire
    gc.collect()
    with pytest.raises(CugraphlabError, match="closed"):
        fire()
    assert fake.rec.calls == 0


def test_dropped_without_close_everything_is_collected(fake, cache):
    from cugraphlab.core import native_launch as nlm
    from cugraphlab.core.launch import PackedArgs

    args = PackedArgs(("u64",), (5,))
    nl = _raw(fake, cache, args=args)
    nl.fire()
    owner, state, storage = weakref.ref(nl), weakref.ref(nl._state), weakref.ref(args.storage)
    fin = nl._finalizer
    del nl, args
    gc.collect()
    assert owner() is None and not fin.alive  # the finalizer ran (it marked the struct closed)
    assert state() is None and storage() is None  # the capsule's destructor dropped its context
    assert isinstance(nlm.NATIVE_LAUNCH_SOURCE, str)


def test_a_cycle_through_the_owner_is_collected(fake, cache):
    nl = _raw(fake, cache)
    nl.me = nl  # the Python side may form cycles; the capsule's context never reaches back
    owner, state = weakref.ref(nl), weakref.ref(nl._state)
    del nl
    gc.collect()
    assert owner() is None and state() is None


def _flag_test(fake, nl, wait_ns: int) -> bool:
    fake.rec.wait_for_flag, fake.rec.wait_ns, fake.rec.flag = 1, wait_ns, 0

    def setter():
        time.sleep(0.02)
        fake.rec.flag = 1  # needs the GIL

    t = threading.Thread(target=setter)
    t.start()
    time.sleep(0.005)
    nl.fire()
    t.join()
    seen = bool(fake.rec.flag_seen)
    fake.rec.wait_for_flag = 0
    return seen


def test_the_gil_is_held_unless_released(fake, cache):
    held = _raw(fake, cache)
    released = _raw(fake, cache, release_gil=True)
    assert _flag_test(fake, released, 2_000_000_000)  # another thread ran during the launch
    assert not _flag_test(fake, held, 300_000_000)  # it could not: the GIL was held
    assert "GIL released" in released.call
    fake.rec.status = 700
    with pytest.raises(CudaError, match="GIL released"):
        released.fire()


def test_native_graph_launch(fake, cache):
    from cugraphlab.core.native_launch import NativeGraphLaunch

    class Exec:
        handle = 0xE1E1

    with NativeGraphLaunch(Exec(), 0x5151, graph_launch=fake.graph_launch, cache=cache) as g:
        for _ in range(5):
            assert g.fire() is None
        r = fake.rec
        assert (r.graph_calls, r.graph_exec, r.graph_stream, r.calls) == (5, 0xE1E1, 0x5151, 0)
        fake.rec.status = 400  # CUDA_ERROR_INVALID_HANDLE
        with pytest.raises(CudaError, match="cuGraphLaunch \\(native\\)") as e:
            g.fire()
        assert e.value.name == "CUDA_ERROR_INVALID_HANDLE"
    with pytest.raises(CugraphlabError, match="closed"):
        g.fire()


def test_no_c_compiler_is_one_unsupported_line(monkeypatch, tmp_path):
    from cugraphlab.core import native_launch as nlm

    monkeypatch.setenv("CC", "no-such-compiler-cgl")
    monkeypatch.setattr("cugraphlab.core.native_library._libraries", {})
    with pytest.raises(UnsupportedError) as e:
        nlm.native_launch_library(Cache(tmp_path))
    assert "no C compiler" in str(e.value) and "\n" not in str(e.value)


def test_a_layout_disagreement_is_one_unsupported_line(monkeypatch, tmp_path):
    """The launch struct is checked field by field (size, then each offset), as the update struct is."""
    import ctypes

    from cugraphlab.core import native_launch as nlm
    from cugraphlab.core import native_library

    want = native_library.ctypes_layout(nlm._State)
    assert len(want) == 14 and want[0] == ctypes.sizeof(nlm._State) and want[1:4] == [0, 8, 16]
    swapped = want[:7] + [want[8], want[7]] + want[9:]  # grid and block swapped: same size, other offsets
    monkeypatch.setattr(native_library, "_libraries", {})
    monkeypatch.setattr(native_library, "ctypes_layout", lambda struct: swapped)
    with pytest.raises(UnsupportedError, match="native launch: the C compiler lays the struct out") as e:
        nlm.native_launch_library(Cache(tmp_path))
    assert "\n" not in str(e.value)


def test_the_library_is_built_once_per_cache(cache):
    from cugraphlab.core.native_launch import native_launch_library

    assert native_launch_library(cache) is native_launch_library(cache)
