"""The field gallery's cugraphlab cases on a GPU: each mistake named (class, call, line of the case's file) by the
doctor in its own process, each fixed twin replayed and checked bit for bit with no finding, nothing crashed or
hung (the teardown of invalidated captures included). The other stacks' cases run in benchmarks/doctor_field.py
(the doctor-field phase of benchmarks/h200.sh), where PyTorch, CuPy, Triton and cuda.core are installed."""
from __future__ import annotations

import pytest

from cugraphlab.experiment.doctor_gallery_field import run_field_gallery

pytestmark = pytest.mark.gpu

KEYS = ["cgl_conditional_body", "cgl_host_callback", "cgl_invalidated_teardown"]


@pytest.fixture(scope="module")
def results():
    return {r.key: r for r in run_field_gallery(KEYS, timeout=120, workers=3)}


@pytest.mark.parametrize("key", KEYS)
def test_a_cugraphlab_case_is_caught_and_its_fix_works(results, key):
    r = results[key]
    if r.skipped:
        pytest.skip(r.skipped)
    assert not r.crashed and not r.hung, (r.broken.tail, r.fixed.tail)
    assert r.caught, (r.broken.first, r.broken.tail)
    assert r.fix_works, r.fixed.tail
