"""The field gallery's cugraphlab cases on a GPU: each mistake named (class, call, line of the case's file) by the
doctor in its own process, each fixed twin replayed and checked bit for bit with no finding, nothing crashed or
hung (the teardown of invalidated captures included). The other stacks' cases run in benchmarks/doctor_field.py
(the doctor-field phase of benchmarks/h200.sh), where PyTorch, CuPy, Triton and cuda.core are installed."""
from __future__ import annotations

import pytest

from cugraphlab.experiment.doctor_gallery_field import run_field_gallery, run_replay

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


REPLAY_KEYS = ["replay_two_streams", "replay_input_race", "replay_update_refused", "replay_freed_buffer"]


@pytest.fixture(scope="module")
def replays():
    return {r.key: r for r in run_replay(REPLAY_KEYS, timeout=120, workers=3)}


@pytest.mark.parametrize("key", REPLAY_KEYS)
def test_a_cugraphlab_replay_hazard_is_named_at_its_capture_site_and_its_twin_is_clean(replays, key):
    """The replay watch (graphs.doctor.launches) in the case's own process: the mistake's first finding names the
    hazard's class, the call and the capture's line; the twin exits 0 (its replays checked bit for bit against
    NumPy float32) with no finding and a site table that counts its captures and launches."""
    r = replays[key]
    if r.skipped:
        pytest.skip(r.skipped)
    assert not r.crashed and not r.hung, (r.broken.tail, r.fixed.tail)
    assert r.caught, (r.broken.first, r.broken.tail)
    assert r.fix_works, (r.fixed.diagnoses, r.fixed.tail)
    (site,) = [s for s in r.fixed.sites if s["stack"] == "cugraphlab" and f"{key}.py:{r.line}" in s["site"]]
    assert site["captures"] >= 1 and site["instantiations"] >= 1 and site["replays"] >= 1
    assert site["capture_s"] > 0 and site["replay_s"] > 0
    if key == "replay_update_refused":
        broken = [s for s in r.broken.sites if f"{key}.py:{r.line}" in s["site"]]
        assert sum(s["refused"] for s in broken) >= 1 and site["refused"] == 0 and site["updates"] >= 1
        assert "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED" in r.broken.first["detail"]
