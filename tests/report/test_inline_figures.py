"""Timeline and sweep figures come back as Figures (inline in a notebook) when no file stem is given."""
from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")


def test_plot_functions_return_a_figure_for_out_none():
    from matplotlib.figure import Figure

    from cugraphlab.report.plots import pyplot
    from cugraphlab.report.plots.measure import plot_sweep_chain, plot_sweep_size, plot_timeline

    rows = [{"mode": m, "size": n, "chain_len": 4, "us_per_iter": t, "us_per_kernel": t / 4, "gbps": 10.0,
             "verified": True} for m, k in (("eager", 2.0), ("graph", 1.0)) for n, t in ((1024, 10 * k),
                                                                                      (1 << 20, 40 * k))]
    for fig in (plot_sweep_size(rows, None, chain_len=4), plot_sweep_chain(rows, None)):
        assert isinstance(fig, Figure)
        pyplot().close(fig)
    timeline = {"title": "t", "modes": {"graph": [{"kernel": "add", "start_ns": 0, "end_ns": 1000},
                                                  {"kernel": "mul", "start_ns": 1500, "end_ns": 2500}]}}
    fig = plot_timeline(timeline, None)
    assert isinstance(fig, Figure)
    pyplot().close(fig)
