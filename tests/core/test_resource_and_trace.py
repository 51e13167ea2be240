"""Ownership (close, context manager, quiet finalizer) and the driver-call trace switch (no GPU needed)."""
from __future__ import annotations

import gc
import io

from cuda.bindings import nvrtc

from cugraphlab.core._calls import driver_fn, driver_module, nv, nvrtc_fn, tracing
from cugraphlab.core._resource import Resource


class Thing(Resource):
    def __init__(self, log, fail=False):
        def release():
            log.append("released")
            if fail:
                raise RuntimeError("driver refused")

        self._own(release)


def test_close_is_idempotent_and_context_manager_closes():
    log = []
    with Thing(log) as t:
        assert not t.closed
    assert t.closed and log == ["released"]
    t.close()
    assert log == ["released"]


def test_garbage_collected_resource_is_released_quietly():
    log = []
    Thing(log, fail=True)  # dropped at once: the finalizer runs and must swallow the error
    gc.collect()
    assert log == ["released"]


def test_explicit_close_reports_a_failed_release():
    t = Thing([], fail=True)
    try:
        t.close()
    except RuntimeError as e:
        assert "refused" in str(e)
    else:
        raise AssertionError("close() hid the failure")
    assert t.closed


def test_tracing_off_hands_out_the_binding_itself():
    assert driver_fn("cuInit") is driver_module().cuInit
    assert nvrtc_fn("nvrtcVersion") is nvrtc.nvrtcVersion


def test_tracing_records_calls_in_order_with_results():
    out = io.StringIO()
    with tracing(out) as t:
        nv("nvrtcVersion")
        nv("nvrtcGetNumSupportedArchs")
    assert [e.api for e in t.entries] == ["nvrtcVersion", "nvrtcGetNumSupportedArchs"]
    assert all(e.result == "NVRTC_SUCCESS" and e.ns > 0 for e in t.entries)
    assert "nvrtcVersion() -> NVRTC_SUCCESS" in out.getvalue()
    assert nvrtc_fn("nvrtcVersion") is nvrtc.nvrtcVersion  # off again afterwards
