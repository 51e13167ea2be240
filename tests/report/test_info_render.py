"""The CUDA lines of `cugraphlab info` from a versions_fit record."""
from cugraphlab.report import run as info_render

BASE = {"bindings": "12.9.10", "bindings_cuda": "12.9", "bindings_major": 12, "nvrtc": "12.9"}


def test_cu12_on_a_13_driver():
    lines = info_render.render_versions_fit({**BASE, "driver_cuda": "13.0", "extra_for_driver": "cu13", "fit": True,
                                             "problems": []}, "580.159.04")
    assert lines == ["CUDA: cuda-bindings 12.9.10 (CUDA 12.9, cu12), NVRTC 12.9, driver CUDA 13.0 (driver 580.159.04)",
                     "fit: yes (for this driver cu12 is right; cu13 would be too)"]


def test_mismatch_lists_the_problems():
    rec = {"bindings": "13.5.0", "bindings_cuda": "13.5", "bindings_major": 13, "nvrtc": "13.5", "driver_cuda": "12.4",
           "extra_for_driver": "cu12", "fit": False, "problems": ["... pip install 'cugraphlab[cu12]' ..."]}
    lines = info_render.render_versions_fit(rec)
    assert lines[1] == "fit: NO" and "cugraphlab[cu12]" in lines[2]


def test_no_driver():
    lines = info_render.render_versions_fit({**BASE, "driver_cuda": None, "extra_for_driver": None, "fit": None,
                                             "problems": []})
    assert lines[0].endswith("driver none found") and lines[1] == "fit: not judged (no driver)"


def test_info_with_cu13_bindings_on_a_12_driver_names_the_install_and_exits_0(fake_driver, monkeypatch, capsys):
    """The CLI end of the start-up check: a stubbed CUDA 12.4 driver under the installed bindings."""
    from cugraphlab import cli
    from cugraphlab.core import _calls, _compat

    fake_driver.version = 12040
    if _calls.bindings_major() < 13:  # cu12 bindings run on a 12.4 driver: pretend to be cu13 for this test
        monkeypatch.setattr(_compat, "bindings_cuda_version", lambda: (13, 5))
        monkeypatch.setattr(_compat, "bindings_version", lambda: "13.5.0")
    assert cli.main(["info"]) == 0  # info's facts need no usable driver: it has done its work (issue 30)
    out, err = capsys.readouterr()
    last = out.strip().splitlines()[-1]
    assert err == "" and "Traceback" not in out and last.startswith("no usable GPU: ")
    assert "pip install 'cugraphlab[cu12]'" in last and "CUDA 12.4" in last
    assert "cuda-bindings" in out and "fit:" in out  # what info can know without a usable driver is still shown
