"""Result checking and the exception types (no GPU needed: statuses are faked)."""
from __future__ import annotations

import pytest
from cuda.bindings import driver

from cugraphlab.core.errors import CaptureError, CudaError, CugraphlabError, NoDeviceError, check, hint_for


def test_success_unpacks_values():
    ok = driver.CUresult.CUDA_SUCCESS
    assert check((ok,)) is None
    assert check((ok, 5)) == 5
    assert check((ok, 1, 2)) == (1, 2)


def test_failure_names_the_result_the_call_and_what_to_do():
    with pytest.raises(CudaError) as e:
        check((driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None), "cuMemAlloc")
    err = e.value
    assert err.name == "CUDA_ERROR_OUT_OF_MEMORY" and err.call == "cuMemAlloc" and err.code == 2
    assert "smaller size" in str(err) and isinstance(err, CugraphlabError)


def test_capture_failures_are_capture_errors():
    with pytest.raises(CaptureError):
        check((driver.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None), "cuStreamEndCapture")


def test_no_device_is_its_own_type():
    with pytest.raises(NoDeviceError):
        check((driver.CUresult.CUDA_ERROR_NO_DEVICE,), "cuInit")


def test_every_hint_is_actionable():
    assert hint_for("CUDA_ERROR_SOMETHING_NEW").startswith("See")
    assert "restart" in hint_for("CUDA_ERROR_ILLEGAL_ADDRESS")


def test_positive_int_is_the_one_check_for_counts():
    import numpy as np

    from cugraphlab.core.errors import InvalidArgumentError, positive_int

    assert positive_int("iterations", 5) == 5 and positive_int("size", np.int64(7)) == 7
    for bad in (0, -1, 2.0, "3", True, None):
        with pytest.raises(InvalidArgumentError, match="iterations must be an integer >= 1"):
            positive_int("iterations", bad)
    with pytest.raises(InvalidArgumentError, match="<= 10"):
        positive_int("timeline iterations", 11, maximum=10)
