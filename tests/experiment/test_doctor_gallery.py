"""The gallery on the capture-aware fake driver: every case names its class and call in its teaching mode, the
clean case finds nothing in any mode, nothing is left capturing, and the modes table says who refuses what."""
from __future__ import annotations

import gc
import pathlib

import pytest

from capture_driver import CaptureFakeDriver
from fake_driver import patch_driver


@pytest.fixture(scope="module")
def results():
    mp = pytest.MonkeyPatch()
    fake = CaptureFakeDriver()
    patch_driver(mp, fake)
    from cugraphlab import Device
    from cugraphlab.experiment.doctor_gallery import run_gallery

    try:
        with Device(0) as dev:
            gallery, table = run_gallery(dev)
        yield fake, gallery, table
    finally:
        gc.collect()  # dropped objects are released by this fake, not a later one
        mp.undo()


def test_every_case_is_named_with_its_class_and_call(results):
    _, gallery, _ = results
    bad = [(r.case, r.diagnosis.first if r.diagnosis else r.error) for r in gallery if not r.named]
    assert bad == []
    assert {r.case for r in gallery} == {"sync", "legacy_stream", "host_copy", "allocation", "event_query",
                                         "other_thread", "unjoined", "isolation", "clean"}


def test_frames_point_at_the_gallery_line_of_the_mistake(results):
    _, gallery, _ = results
    src = (pathlib.Path(__file__).resolve().parents[2] / "cugraphlab/experiment/doctor_gallery.py").read_text()
    lines = src.splitlines()
    for r in gallery:
        if r.case in ("clean", "unjoined"):
            continue
        where = r.diagnosis.first.where
        line = int(where.split("doctor_gallery.py:")[1].split(",")[0])
        assert "mistake" in lines[line - 1], (r.case, where, lines[line - 1])


def test_nothing_left_capturing_and_no_false_alarm(results):
    fake, gallery, table = results
    assert all(r.restored for r in gallery + table), [(r.case, r.mode, r.still_capturing) for r in gallery + table
                                                      if not r.restored]
    assert fake.captures == {}
    assert all(r.diagnosis.findings == [] for r in table if r.case == "clean")


def test_modes_table(results):
    _, _, table = results
    outcome = {(r.case, r.mode): r.outcome for r in table}
    assert outcome[("allocation", "relaxed")] == "allowed"
    assert outcome[("allocation", "thread_local")].startswith("refused")
    assert outcome[("other_thread", "global")].startswith("refused")
    assert outcome[("other_thread", "thread_local")] == "allowed"
    assert all(outcome[("sync", m)].startswith("refused") for m in ("global", "thread_local", "relaxed"))
    # a synchronous copy the driver accepted ran at once, outside the graph: not "refused: CUDA_SUCCESS"
    copies = [outcome[("host_copy", m)] for m in ("global", "thread_local", "relaxed")]
    assert "ran, not captured" in copies and "refused: CUDA_SUCCESS" not in copies, copies


def test_the_modes_table_names_an_old_records_accepted_copy_as_ran_not_captured():
    from cugraphlab.report.doctor import render_modes_table

    row = {"case": "host_copy", "mode": "global", "outcome": "refused: CUDA_SUCCESS", "restored": True}
    text = render_modes_table([row])
    assert "ran, not captured" in text and "CUDA_SUCCESS" not in text, text


def test_rendering(results):
    from cugraphlab.report.doctor import render_diagnosis, render_gallery, render_modes_table

    _, gallery, table = results
    text = render_gallery(gallery)
    assert "named" in text and "NO" not in text.split("\n\n")[-1]
    assert "fix:" in render_diagnosis(gallery[0].diagnosis)
    modes = render_modes_table([r.to_dict() for r in table])
    assert "global" in modes and "relaxed" in modes and "PyTorch" in modes


def test_the_why_of_a_sync_lists_only_calls_the_driver_refuses():
    """The gallery shows a synchronous cuMemcpy accepted in every mode (host_copy: ran, not captured), so the sync
    mistake's why must not name it among the refused waits."""
    from cugraphlab.graphs import MISTAKES

    why = MISTAKES["sync"].why
    assert "cuStreamSynchronize" in why and "cuMemcpy" not in why, why
