"""bench.native_graph: the C cuGraphInstantiate loop runs on the CPU against fake driver entry points (ctypes
callbacks): it calls the driver as a C program would, times each call, destroys each executable, and stops at the
first failure with the call that failed."""
from __future__ import annotations

import shutil

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError
from native_graph_fakes import FakeEntry

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler on this machine")


def _floor(fake, tmp_path):
    from cugraphlab.bench.native.instantiate import InstantiateFloor

    return InstantiateFloor(entry=fake.entry, cache=Cache(tmp_path))


def test_each_instantiation_is_timed_and_its_executable_destroyed(tmp_path):
    fake = FakeEntry(us_for=lambda graph: 200.0)
    ns = _floor(fake, tmp_path).instantiate_ns(0xAB00, 7, flags=1)
    assert len(ns) == 7 and fake.instantiated == [(0xAB00, 1)] * 7
    assert fake.destroyed == [0x9000 + i for i in range(7)]  # the executable each call made, destroyed once
    assert all(150_000 <= v < 50_000_000 for v in ns)  # the busy wait, timed in C (ns)


def test_a_refused_instantiation_is_a_typed_error_after_the_good_ones(tmp_path):
    fake = FakeEntry(fail=("instantiate", 3, 1))  # CUDA_ERROR_INVALID_VALUE
    with pytest.raises(CudaError) as e:
        _floor(fake, tmp_path).instantiate_ns(0xAB00, 5)
    assert e.value.name == "CUDA_ERROR_INVALID_VALUE" and "cuGraphInstantiate" in str(e.value)
    assert "after 2 successful calls" in str(e.value)
    assert len(fake.instantiated) == 3 and len(fake.destroyed) == 2  # nothing made, nothing destroyed


def test_a_refused_destroy_names_cuGraphExecDestroy(tmp_path):
    fake = FakeEntry(fail=("destroy", 2, 400))  # CUDA_ERROR_INVALID_HANDLE
    with pytest.raises(CudaError) as e:
        _floor(fake, tmp_path).instantiate_ns(0xAB00, 5)
    assert "cuGraphExecDestroy" in str(e.value) and e.value.name == "CUDA_ERROR_INVALID_HANDLE"
    assert len(fake.instantiated) == 2


def test_n_must_be_positive_and_the_library_is_cached(tmp_path):
    fake = FakeEntry()
    a = _floor(fake, tmp_path)
    with pytest.raises(ValueError):
        a.instantiate_ns(1, 0)
    assert _floor(fake, tmp_path).cache_hit
