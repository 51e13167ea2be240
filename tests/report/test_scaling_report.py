"""The scaling report on a synthetic record: tables per topology, fits, verdict, break-even, goals, CSV rows and the
log-log figure (no GPU needed)."""
from __future__ import annotations

import json
import sys

import pytest
from scaling_records import synthetic_record

from cugraphlab.bench.scaling import analyze
from cugraphlab.report.scaling import csv_rows, plot_scaling, render_scaling


@pytest.fixture
def record():
    r = analyze(synthetic_record())
    r.env["driver"] = {"release": "580.1", "cuda": "13.0"}
    r.module_loading = {"CUDA_MODULE_LOADING": None, "effective": "LAZY (default)", "note": "a note",
                        "first_instantiate_us": 30.0, "later_instantiate_us": 9.0}
    return r


def test_render_has_every_section(record):
    text = render_scaling(record, written=["out.json"])
    for needle in ("straight line:", "fork/join, 4 branches:", "fits: cost = a + b * nodes", "instantiate",
                   "900.0 [", "ns/node", "constant-time launch", "constant: within ±5%", "break-even", "unrolling",
                   "goals:", "host graph launch <= 2.0 µs from 4 to 128 nodes (device held): met",
                   "no verdict", "CUDA_MODULE_LOADING=unset", "wrote out.json", "Fake GPU"):
        assert needle in text, needle
    assert "CHECKS FAILED" not in text
    # the same from the record read back as JSON
    assert render_scaling(json.loads(json.dumps(record.to_dict()))).splitlines()[1:] == \
        render_scaling(record).splitlines()[1:]


def test_a_failed_point_is_shown(record):
    record.points[3]["ok"] = False
    record.points[3]["failures"] = ["capture: 3 of 64 elements differ"]
    assert "CHECKS FAILED" in render_scaling(record) and "3 of 64" in render_scaling(record)


def test_csv_rows_are_flat(record):
    rows = csv_rows(record)
    assert len(rows) == len(record.points)
    assert all(not isinstance(v, (dict, list)) for r in rows for v in r.values())
    first = rows[0]
    assert first["series"] == "line" and first["instantiate_us"] == pytest.approx(8.9)
    assert "break_even_replays" in first and "instantiate_us_per_node" in first


def test_plot_writes_png_and_svg(record, tmp_path):
    pytest.importorskip("matplotlib")
    paths = plot_scaling(record, tmp_path / "fig" / "scaling")
    assert [p.name for p in paths] == ["scaling.png", "scaling.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_plot_without_matplotlib_names_the_install(record, tmp_path, monkeypatch):
    from cugraphlab.core.errors import InvalidArgumentError

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(InvalidArgumentError, match="pip install matplotlib"):
        plot_scaling(record, tmp_path / "x")
