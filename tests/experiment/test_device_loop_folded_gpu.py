"""The folded self loop and the decision every K iterations on the GPU, at 1,024 floats (one block), 2^20 (1,024
blocks: the last-block protocol across the grid) and 1,000,003 (the scalar tail): bit-exact against NumPy on fresh
inputs with poisoned outputs, iterations counted on the GPU as predicted, one device launch per decision but the
last, and the stamped timeline."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

SIZES = [1024, 1 << 20, 1_000_003]
K = 50


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n}floats")
def loop(request, device):
    from cugraphlab import Chain
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.experiment.device_loop import device_loop

    with Chain(device, n=request.param, seed=request.param) as chain:
        try:
            kit = device_loop(chain, capacity=256)
        except UnsupportedError as e:
            pytest.skip(f"device graph launch unavailable: {e}")
        yield kit


def _threshold(loop) -> float:
    return (float(np.abs(loop.chain.expected()[:32]).sum()) or 1.0) * 37.0


@pytest.mark.parametrize("n", [1, 2, 1000])
def test_folded_counted(loop, n):
    chk = loop.run_loop("folded", n)
    assert chk.ok, str(chk)
    assert chk.launches == n - 1
    assert loop.read_state().status == 0


@pytest.mark.parametrize("n", [K, 2 * K, 1000])
def test_decision_every_k_counted(loop, n):
    chk = loop.run_loop("folded", n, every=K)
    assert chk.ok, str(chk)
    assert chk.iterations == n and chk.launches == n // K - 1


@pytest.mark.parametrize("every,n", [(1, 25), (K, 2 * K)])
def test_feedback_applies_the_chain_n_times(loop, every, n):
    chk = loop.run_loop("folded", n, feedback=True, every=every)
    assert chk.ok, str(chk)


@pytest.mark.parametrize("every", [1, K])
def test_threshold_stops_where_numpy_says(loop, every):
    chk = loop.run_loop("folded", 10_000, threshold=_threshold(loop), probe=32, every=every)
    assert chk.ok, str(chk)
    assert 1 < chk.iterations < 10_000 and chk.iterations % every == 0


def test_block_counter_is_reset_by_the_last_block(loop):
    """After a loop the counter of finished blocks is 0 again (the last block of every iteration reset it); a
    counter left behind would make the next iteration's last block never see gridDim.x - 1."""
    assert loop.run_loop("folded", 7).ok
    words = loop.state.to_numpy(stream=loop.chain.stream)
    assert int(words[6]) == 0  # CglDevLoop.blocks, the 7th 32-bit word


def test_folded_timeline(loop):
    from cugraphlab.bench.graphs.devlaunch import timeline_segments

    loop.clear_slots()
    chk = loop.run_loop("folded", 100, stamped=True)
    assert chk.ok, str(chk)
    seg = timeline_segments(loop.read_slots(100), "folded")
    it = seg["iteration (start to start)"]
    assert len(it) == 99 and (it > 0).all()
    parts = sum(np.median(seg[k]) for k in seg if k != "iteration (start to start)")
    assert parts == pytest.approx(np.median(it), rel=0.25)


def test_count_not_a_multiple_is_refused(loop):
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=f"multiple of {K}"):
        loop.run_loop("folded", 1001, every=K)
