"""On the GPU: NativeExecUpdate / NativeKernelNodeSetParams move an executable to new argument values bit-exact (fresh
inputs, poisoned outputs), in hot loops too; a refused update (topology changed) raises the typed error naming why,
``update()`` answers it like try_exec_update, and the executable, stream and context stay usable (gpu marker)."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

SIG = ("ptr", "ptr", "ptr", "u64")


@pytest.fixture
def parts(device, kernels):
    from cugraphlab.core.launch import LaunchConfig
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.inspect import kernel_nodes_in_order

    n = 4099  # not a multiple of 4: the scalar tail runs too
    with device.create_stream() as s, device.array(n) as xa, device.array(n) as ya, device.array(n) as xb, \
            device.array(n) as yb, device.array(n) as out:
        la = kernels["add"].prepare(SIG, (out, xa, ya, n), LaunchConfig(5, 256), s)
        lb = kernels["add"].prepare(SIG, (out, xb, yb, n), LaunchConfig(5, 256), s)
        with capture_launches(s, [la]) as ga, capture_launches(s, [lb]) as gb, ga.instantiate() as exe:
            exe.upload(s)
            yield dict(s=s, n=n, out=out, la=la, lb=lb, ga=ga, gb=gb, exe=exe, xa=xa, ya=ya, xb=xb, yb=yb,
                       node=kernel_nodes_in_order(ga)[0], device=device, kernels=kernels)


def _fresh(p, rng):
    """New inputs for both sets; the expected sums (A, B)."""
    out = []
    for x, y in ((p["xa"], p["ya"]), (p["xb"], p["yb"])):
        hx, hy = rng.standard_normal(p["n"], dtype=np.float32), rng.standard_normal(p["n"], dtype=np.float32)
        x.copy_from(hx, stream=p["s"])
        y.copy_from(hy, stream=p["s"])
        out.append(hx + hy)
    return out


def _run_differ(p, expected, target=None) -> int:
    """Poison the output, launch the executable once, count the elements whose bits differ from ``expected``."""
    target = target or p["out"]
    s = p["s"]
    target.poison(s)
    p["exe"].launch(s)
    s.synchronize()
    got = target.to_numpy(stream=s)
    return int(np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32)))


@pytest.mark.parametrize("release_gil", [False, True])
def test_a_native_update_with_changed_values_is_bit_exact(parts, release_gil):
    from studies.exec_update.native_update import NativeExecUpdate

    p = parts
    rng = np.random.default_rng()
    with NativeExecUpdate(p["exe"], p["gb"], release_gil=release_gil) as to_b, \
            NativeExecUpdate(p["exe"], p["ga"], release_gil=release_gil) as to_a:
        for _ in range(2):
            a, b = _fresh(p, rng)
            assert _run_differ(p, a) == 0
            assert to_b.fire() is None and to_b.result == "CU_GRAPH_EXEC_UPDATE_SUCCESS"
            assert _run_differ(p, b) == 0
            assert to_a.fire() is None
            assert _run_differ(p, a) == 0
        fb, fa = to_b.fire, to_a.fire
        for _ in range(2000):  # a hot loop, ending on B
            fa()
            fb()
        assert _run_differ(p, b) == 0 and to_b.failures == 0 and to_b.calls == 2002
        to_a.fire()
    with pytest.raises(Exception, match="closed"):
        to_b.fire()
    assert _run_differ(p, a) == 0  # closing the native updates leaves the executable as it was


def test_native_set_params_of_one_node_is_bit_exact_and_reads_the_packed_arguments(parts):
    from studies.exec_update.native_update import NativeKernelNodeSetParams

    p = parts
    rng = np.random.default_rng()
    a, b = _fresh(p, rng)
    with NativeKernelNodeSetParams(p["exe"], p["node"], p["lb"]) as to_b, \
            NativeKernelNodeSetParams(p["exe"], p["node"], p["la"]) as to_a:
        assert to_b.fire() is None
        assert _run_differ(p, b) == 0
        to_a.fire()
        assert _run_differ(p, a) == 0
        with p["device"].array(p["n"]) as other:
            p["lb"].args.set(0, other)  # kernelParams is the Launch's own array: the next fire sets `other`
            to_b.fire()
            assert _run_differ(p, b, target=other) == 0
            p["lb"].args.set(0, p["out"])
            to_a.fire()
        for _ in range(1000):
            to_b.fire()
            to_a.fire()
        assert _run_differ(p, a) == 0 and to_a.failures == 0


def test_a_refused_update_is_typed_and_names_why_and_everything_stays_usable(parts):
    from cugraphlab.core.errors import CudaError
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.update import try_exec_update
    from studies.exec_update.native_update import NativeExecUpdate

    p = parts
    rng = np.random.default_rng()
    a, b = _fresh(p, rng)
    with capture_launches(p["s"], [p["lb"], p["lb"]]) as two, NativeExecUpdate(p["exe"], two) as upd:
        with pytest.raises(CudaError) as e:
            upd.fire()
        assert e.value.name == "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE" and "cuGraphExecUpdate (native)" in str(e.value)
        expected = try_exec_update(p["exe"], two)  # the binding's account of the same refusal
        assert expected.refused and upd.result == expected.result and expected.result in str(e.value)
        assert "TOPOLOGY" in upd.result or "NODE" in upd.result
        again = upd.update()
        assert (again.updated, again.result) == (False, expected.result) and upd.failures == 2
    assert _run_differ(p, a) == 0  # the refused update left the executable as it was
    with NativeExecUpdate(p["exe"], p["gb"]) as to_b:
        to_b.fire()  # and it still updates
        assert _run_differ(p, b) == 0
    p["la"]()  # eager launches and the context are fine
    p["s"].synchronize()


def test_dropped_without_close_is_collected_and_a_kept_fire_raises(parts):
    from cugraphlab.core.errors import CugraphlabError
    from studies.exec_update.native_update import NativeExecUpdate, NativeKernelNodeSetParams

    p = parts
    upd = NativeExecUpdate(p["exe"], p["gb"])
    upd.fire()
    sp = NativeKernelNodeSetParams(p["exe"], p["node"], p["la"])
    kept = sp.fire
    kept()
    refs = weakref.ref(upd), weakref.ref(upd._state), weakref.ref(sp)
    del upd, sp
    gc.collect()
    assert all(r() is None for r in refs)
    with pytest.raises(CugraphlabError, match="closed"):
        kept()
    a, _ = _fresh(p, np.random.default_rng())
    assert _run_differ(p, a) == 0
