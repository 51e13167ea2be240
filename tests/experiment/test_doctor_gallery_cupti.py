"""The gallery in the CUPTI mode on the fake cupti and the capture fake driver: every case (the door's and the raw
ones) named with its class and call, the raw cases only "foreign" without CUPTI, the clean case quiet, one
subscription per capture, nothing left subscribed or capturing; the text rendering."""
from __future__ import annotations

import gc
import pathlib

import pytest

from fake_cupti import CuptiCaptureDriver, FakeCupti
from fake_driver import patch_driver


def _run(cupti_on: bool):
    from cugraphlab import Device
    from cugraphlab.experiment.doctor_gallery import CASES, FOREIGN_CASES, run_gallery
    from cugraphlab.graphs.doctor import cupti as doctor_cupti

    mp = pytest.MonkeyPatch()
    fake_cupti = FakeCupti()
    fake = CuptiCaptureDriver(fake_cupti)
    patch_driver(mp, fake)
    mp.setattr(doctor_cupti, "_loaded", doctor_cupti.CuptiLibrary(fake_cupti, "/fake/libcupti.so.13", "test"))
    try:
        with Device(0) as dev:
            gallery, table = run_gallery(dev, cases=CASES + FOREIGN_CASES, cupti=cupti_on)
        return fake_cupti, fake, gallery, table
    finally:
        gc.collect()
        mp.undo()


@pytest.fixture(scope="module")
def with_cupti():
    return _run(True)


@pytest.fixture(scope="module")
def without_cupti():
    return _run(False)


def test_every_case_named_in_the_cupti_mode(with_cupti):
    _, _, gallery, _ = with_cupti
    got = {r.case: (r.diagnosis.first.kind, r.diagnosis.first.call) if r.diagnosis and r.diagnosis.first else None
           for r in gallery}
    assert [r.case for r in gallery if not r.named] == [], got
    assert got["raw_sync"] == ("sync", "cuCtxSynchronize")
    assert got["raw_legacy"] == ("legacy_stream", "cuLaunchKernel")
    assert got["clean"] is None


def test_the_raw_cases_point_at_the_gallery_line(with_cupti):
    _, _, gallery, _ = with_cupti
    src = (pathlib.Path(__file__).resolve().parents[2] / "cugraphlab" / "experiment" / "doctor_gallery.py")
    lines = src.read_text().splitlines()
    for case, marker in (("raw_sync", "cuCtxSynchronize()  # mistake"), ("raw_legacy", "# mistake, raw")):
        r = next(r for r in gallery if r.case == case)
        want = next(i + 1 for i, l in enumerate(lines) if marker in l)
        assert f"doctor_gallery.py:{want}," in r.diagnosis.first.where, r.diagnosis.first.where


def test_without_cupti_the_raw_cases_are_only_foreign(without_cupti):
    _, _, gallery, _ = without_cupti
    raw = {r.case: (r.diagnosis.first.kind, r.diagnosis.first.call) for r in gallery if r.case.startswith("raw_")}
    assert raw == {"raw_sync": ("foreign", "?"), "raw_legacy": ("foreign", "?")}
    assert all(r.named for r in gallery)
    assert all(r.diagnosis.cupti == {} for r in gallery if r.diagnosis)


def test_subscriptions_balanced_and_nothing_left(with_cupti):
    cupti, fake, gallery, table = with_cupti
    subs = sum(1 for e in cupti.log if e[0] == "subscribe")
    unsubs = sum(1 for e in cupti.log if e[0] == "unsubscribe")
    assert subs == unsubs > len(gallery)  # one per capture (the isolation case nests two in one)
    assert not cupti.subscribed and fake.captures == {}
    assert [(r.case, r.mode) for r in table if not r.restored or r.error] == []
    assert [r.mode for r in table if r.case == "clean" and r.diagnosis.findings] == []


def test_rendering(with_cupti):
    from cugraphlab.report.doctor_cupti import render_cupti_log, render_cupti_overhead, render_doctor_cupti

    _, _, gallery, table = with_cupti
    rec = {"config": {"cupti_library": "/fake/libcupti.so.13 (found via test)"},
           "cases": [r.to_dict() for r in gallery], "modes": [r.to_dict() for r in table], "overhead": {},
           "false_alarms": 0, "restored_all": True}
    text = render_doctor_cupti(rec)
    assert "--- raw_sync (CUPTI) ---" in text and "cuCtxSynchronize" in text
    assert text.splitlines()[0] == "CUPTI mode: libcupti /fake/libcupti.so.13 (found via test)"
    raw = next(r for r in gallery if r.case == "raw_sync")
    assert "outside cugraphlab" in render_cupti_log(raw.diagnosis)
    summ = {"median": 10.0, "p5": 9.0, "p95": 11.0, "clock": "host_api"}
    o = {f"{p}_{v}": dict(summ) for p in ("capture", "replay") for v in ("plain", "explained", "cupti")}
    o["capture_cupti"]["median"] = 30.0
    o.update(launches_per_capture=64, cupti_capture_ratio=3.0, cupti_us_per_call=0.31, cupti_replay_ratio=1.0)
    out = render_cupti_overhead(o)
    assert "x3.00 of plain" in out and "+0.31 us per call" in out and "capture cupti" in out
    assert render_cupti_overhead({"capture_plain": summ}) == ""
