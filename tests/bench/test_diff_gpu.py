"""On the GPU: a record made with a deliberate 1 µs per launch is flagged SLOWER by diff, an identical run is not
(benchmarks/diff_check.py's probe, fewer samples)."""
from __future__ import annotations

import importlib.util
import math
import pathlib
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "diff_check.py"


def _script():
    if "diff_check" not in sys.modules:
        spec = importlib.util.spec_from_file_location("diff_check", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["diff_check"] = module
        spec.loader.exec_module(module)
    return sys.modules["diff_check"]


@pytest.mark.gpu
def test_a_deliberate_microsecond_per_launch_is_slower_and_a_repeat_is_not(device):
    dc = _script()
    recs = dc.probe(device, samples=20, launches=1000, delay_ns=1000)
    same, slower, wrong = dc.check_verdicts(recs["base"].to_dict(), recs["repeat"].to_dict(),
                                            recs["delayed"].to_dict())
    assert wrong == [], [(r.label, r.verdict, r.reason) for r in same.rows + slower.rows]
    host = next(r for r in slower.rows if r.label == dc.HOST_ROW)
    # the ratio itself (about (base + 1 µs) / base) is a figure: benchmarks/ratio_figures.py prints it with its
    # interval; here, that diff computed a finite ratio inside its own interval from every sample of both records
    assert math.isfinite(host.ratio) and host.low <= host.ratio <= host.high, (host.ratio, host.low, host.high)
    assert (host.n_a, host.n_b) == (20, 20) and host.median_a > 0 and host.median_b > 0
    assert recs["base"].env["gpu"]["name"]
