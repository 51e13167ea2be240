"""The one search for cuda_device_runtime_api.h (core.cuda_headers.search_include_dir), on synthetic folder layouts:
wheels (complete, and without crt/ as a CUDA 13 environment without nvidia-cuda-crt has), toolkits found through
CUDA_HOME, the nvcc on PATH (a link, or a wrapper script answered through ``nvcc -v --dryrun``), beside
libcudadevrt.a and under the default prefix, folders of another major refused, and errors naming every folder."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cugraphlab.core import cuda_headers as ch
from cugraphlab.core import link
from cugraphlab.core.errors import UnsupportedError

#: Look only where a test says: no NVRTC library, environment, nvcc, pathfinder or default prefix of this machine.
ONLY = dict(nvrtc_lib=None, environ={}, nvcc=None, pathfinder=False, default_roots=())


def headers(folder: Path, version: int | None, *, crt: bool = True, define: str = "runtime") -> Path:
    """A fake CUDA include folder; ``version`` like 13000 (CUDA 13.0), written as CUDART_VERSION or CUDA_VERSION."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ch.NEEDED:
        if crt or not name.startswith("crt/"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text("// stub\n")
    if version is not None and define == "runtime":
        (folder / "cuda_runtime_api.h").write_text(f"#pragma once\n#define CUDART_VERSION  {version}\n")
    elif version is not None:
        (folder / "cuda.h").write_text(f"#ifndef __cuda_cuda_h__\n# define CUDA_VERSION {version}\n#endif\n")
    return folder


def library(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return str(path)


def wheel_env(tmp_path: Path, *, crt: bool) -> tuple[str, Path]:
    """site-packages/nvidia/cu13 with NVRTC, libcudadevrt.a and the runtime headers (crt/ only with ``crt``)."""
    cu13 = tmp_path / "site-packages" / "nvidia" / "cu13"
    nvrtc = library(cu13 / "lib" / "libnvrtc.so.13")
    library(cu13 / "lib" / "libcudadevrt.a")
    return nvrtc, headers(cu13 / "include", 13000, crt=crt)


def toolkit(root: Path, version: int) -> Path:
    """A toolkit root laid out as the CUDA installers do: include/, lib64/libcudadevrt.a, bin/nvcc."""
    headers(root / "include", version)
    library(root / "lib64" / "libcudadevrt.a")
    nvcc = root / "bin" / "nvcc"
    library(nvcc)
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IXUSR)
    return root


# --- the version written in a folder ------------------------------------------------------------------------------
@pytest.mark.parametrize("value,define,expected", [(13000, "runtime", (13, 0)), (12090, "runtime", (12, 9)),
                                                   (13020, "driver", (13, 2)), (12080, "driver", (12, 8))])
def test_header_version_is_major_thousands_minor_tens(tmp_path, value, define, expected):
    assert ch.header_cuda_version(headers(tmp_path / "inc", value, define=define)) == expected


def test_cudart_version_wins_over_cuda_h(tmp_path):
    inc = headers(tmp_path / "inc", 13000)
    (inc / "cuda.h").write_text("#define CUDA_VERSION 12090\n")
    assert ch.header_cuda_version(inc) == (13, 0)


# --- wheel layouts ------------------------------------------------------------------------------------------------
def test_complete_cu13_wheels_are_taken_beside_nvrtc(tmp_path):
    nvrtc, inc = wheel_env(tmp_path, crt=True)
    s = ch.search_include_dir(13, **{**ONLY, "nvrtc_lib": nvrtc})
    assert s.found == str(inc) and s.via.startswith("beside NVRTC") and s.looked[-1].refused == ""


def test_cu13_wheels_without_crt_fall_through_to_a_toolkit(tmp_path):
    """The H200 image: nvidia-cuda-runtime gives cuda_device_runtime_api.h, nothing gives crt/host_defines.h."""
    nvrtc, inc = wheel_env(tmp_path, crt=False)
    kit = toolkit(tmp_path / "cuda-13.0", 13000)
    s = ch.search_include_dir(13, **{**ONLY, "nvrtc_lib": nvrtc, "environ": {"CUDA_HOME": str(kit)}})
    assert s.found == str(kit / "include") and s.via == "$CUDA_HOME"
    refused = {x.folder: x.refused for x in s.looked}
    assert refused[str(inc)] == "lacks crt/host_defines.h"


def test_cu13_wheels_without_crt_alone_are_refused_naming_every_folder(tmp_path):
    nvrtc, inc = wheel_env(tmp_path, crt=False)
    with pytest.raises(UnsupportedError) as e:
        ch.require_include_dir("device graph launch", 13, **{**ONLY, "nvrtc_lib": nvrtc})
    text = str(e.value)
    assert "\n" not in text and text.startswith("device graph launch: no CUDA 13 include folder")
    assert f"{inc} (beside NVRTC {nvrtc}: lacks crt/host_defines.h)" in text
    assert str(inc.parent.parent / "cuda_runtime" / "include") + " (beside NVRTC" in text  # looked, no such folder
    assert "nvidia-cuda-crt" in text and "CUDA_HOME" in text


# --- toolkit layouts ----------------------------------------------------------------------------------------------
def test_cuda_home_then_cuda_path(tmp_path):
    home, path = toolkit(tmp_path / "home", 13000), toolkit(tmp_path / "path", 13010)
    env = {"CUDA_HOME": str(home), "CUDA_PATH": str(path)}
    assert ch.search_include_dir(13, **{**ONLY, "environ": env}).found == str(home / "include")
    env["CUDA_HOME"] = str(tmp_path / "nowhere")
    s = ch.search_include_dir(13, **{**ONLY, "environ": env})
    assert s.found == str(path / "include") and s.looked[0].refused == "no such folder"


def test_toolkit_targets_layout_under_cuda_home(tmp_path):
    root = tmp_path / "cuda"
    inc = headers(root / "targets" / "x86_64-linux" / "include", 13000)
    s = ch.search_include_dir(13, **{**ONLY, "environ": {"CUDA_HOME": str(root)}})
    assert s.found == str(inc)


def test_nvcc_on_path_through_a_link(tmp_path):
    kit = toolkit(tmp_path / "opt" / "cuda-13.0", 13000)
    (tmp_path / "bin").mkdir()
    os.symlink(kit / "bin" / "nvcc", tmp_path / "bin" / "nvcc")
    s = ch.search_include_dir(13, **{**ONLY, "nvcc": str(tmp_path / "bin" / "nvcc")})
    assert s.found == str(kit / "include") and s.via == f"nvcc {tmp_path / 'bin' / 'nvcc'}"


def test_nvcc_wrapper_script_is_asked_for_its_includes(tmp_path):
    """A /usr/local/bin/nvcc that execs the real one: its own folder has no headers; ``nvcc -v --dryrun`` says where
    they are (the INCLUDES line, as nvcc prints it)."""
    kit = tmp_path / "cuda-13.0"
    inc = headers(kit / "targets" / "x86_64-linux" / "include", 13000)
    wrapper = tmp_path / "local" / "bin" / "nvcc"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text("#!/bin/sh\n"
                       f"echo '#$ _HERE_={kit}/bin' >&2\n"
                       f"echo '#$ INCLUDES=\"-I{kit}/bin/../targets/x86_64-linux/include\"  ' >&2\n")
    wrapper.chmod(0o755)
    s = ch.search_include_dir(13, **{**ONLY, "nvcc": str(wrapper)})
    assert s.found == str(inc)
    assert s.looked[0].folder == str(tmp_path / "local" / "include") and s.looked[0].refused == "no such folder"


def test_a_broken_nvcc_is_only_a_folder_less(tmp_path):
    wrapper = tmp_path / "bin" / "nvcc"
    wrapper.parent.mkdir()
    wrapper.write_text("#!/bin/sh\nexit 1\n")
    wrapper.chmod(0o755)
    s = ch.search_include_dir(13, **{**ONLY, "nvcc": str(wrapper)})
    assert s.found is None and all(x.refused for x in s.looked)


def test_beside_libcudadevrt_comes_after_the_environment(tmp_path):
    nvrtc, _ = wheel_env(tmp_path, crt=False)
    beside = toolkit(tmp_path / "devrt-kit", 13000)
    home = toolkit(tmp_path / "home", 13000)
    devrt = str(beside / "lib64" / "libcudadevrt.a")
    s = ch.search_include_dir(13, **{**ONLY, "nvrtc_lib": nvrtc, "beside": (devrt,)})
    assert s.found == str(beside / "include") and s.via == "beside libcudadevrt.a"
    s = ch.search_include_dir(13, **{**ONLY, "nvrtc_lib": nvrtc, "beside": (devrt,),
                                     "environ": {"CUDA_HOME": str(home)}})
    assert s.found == str(home / "include")  # what conditional.cu (which names no library) also gets


def test_default_prefix_is_last(tmp_path):
    kit = toolkit(tmp_path / "usr-local-cuda", 13000)
    s = ch.search_include_dir(13, **{**ONLY, "default_roots": (str(kit),)})
    assert s.found == str(kit / "include") and s.via == "default prefix"


def test_a_folder_reached_twice_is_looked_at_once(tmp_path):
    kit = toolkit(tmp_path / "cuda-12.9", 12090)
    os.symlink(kit, tmp_path / "cuda")
    env = {"CUDA_HOME": str(tmp_path / "cuda"), "CUDA_PATH": str(kit)}
    s = ch.search_include_dir(13, **{**ONLY, "environ": env, "default_roots": (str(kit),)})
    assert [x.folder for x in s.looked] == [str(tmp_path / "cuda" / "include")]


# --- mismatched majors --------------------------------------------------------------------------------------------
def test_a_toolkit_of_another_major_is_refused(tmp_path):
    nvrtc, _ = wheel_env(tmp_path, crt=False)
    kit = toolkit(tmp_path / "cuda-12.9", 12090)
    with pytest.raises(UnsupportedError) as e:
        ch.require_include_dir("device graph launch", 13,
                               **{**ONLY, "nvrtc_lib": nvrtc, "environ": {"CUDA_HOME": str(kit)}})
    assert f"{kit / 'include'} ($CUDA_HOME: CUDA 12.9, NVRTC is 13)" in str(e.value)
    # ... and the same folder is right for NVRTC 12
    assert ch.search_include_dir(12, **{**ONLY, "environ": {"CUDA_HOME": str(kit)}}).found == str(kit / "include")


def test_headers_of_no_version_are_refused(tmp_path):
    root = tmp_path / "cuda"
    headers(root / "include", None)
    s = ch.search_include_dir(13, **{**ONLY, "environ": {"CUDA_HOME": str(root)}})
    assert s.found is None and "no CUDART_VERSION" in s.looked[0].refused


# --- core.link goes through the same search -------------------------------------------------------------------------
@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """The real search with nothing of this machine in reach: NVRTC in a fake wheel without crt/, empty PATH, no
    CUDA_HOME/CUDA_PATH, pathfinder finding nothing, a default prefix inside tmp_path."""
    nvrtc, inc = wheel_env(tmp_path, crt=False)
    monkeypatch.setattr(ch, "loaded_nvrtc_path", lambda: nvrtc)
    monkeypatch.setattr(ch, "DEFAULT_ROOTS", (str(tmp_path / "usr-local-cuda"),))
    monkeypatch.setattr(ch, "_pathfinder_cudart_dir", lambda: iter(()))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path, inc


def test_devrt_include_dir_error_names_every_folder(isolated):
    tmp_path, inc = isolated
    devrt = str(tmp_path / "site-packages" / "nvidia" / "cu13" / "lib" / "libcudadevrt.a")
    with pytest.raises(UnsupportedError) as e:
        link.devrt_include_dir(devrt, 13)
    text = str(e.value)
    assert "\n" not in text and text.startswith("device graph launch: no CUDA 13 include folder with "
                                                "cuda_device_runtime_api.h, driver_types.h, crt/host_defines.h")
    assert f"{inc} (beside NVRTC" in text and "lacks crt/host_defines.h" in text
    assert str(tmp_path / "usr-local-cuda" / "include") + " (default prefix: no such folder)" in text


def test_devrt_and_conditional_take_the_same_folder(isolated, monkeypatch):
    tmp_path, _ = isolated
    kit = toolkit(tmp_path / "cuda-13.0", 13000)
    monkeypatch.setenv("CUDA_HOME", str(kit))
    devrt = str(tmp_path / "site-packages" / "nvidia" / "cu13" / "lib" / "libcudadevrt.a")
    assert link.devrt_include_dir(devrt, 13) == ch.search_include_dir(13).found == str(kit / "include")
    monkeypatch.delenv("CUDA_HOME")
    monkeypatch.setenv("PATH", str(kit / "bin"))  # nvcc found on PATH instead
    assert link.devrt_include_dir(devrt, 13) == ch.search_include_dir(13).found == str(kit / "include")


def test_find_cudadevrt_falls_back_to_the_toolkit(monkeypatch, tmp_path):
    import cuda.pathfinder

    def missing(name):
        raise RuntimeError('Failure finding "libcudadevrt.a": CUDA_HOME/CUDA_PATH not set')

    kit = toolkit(tmp_path / "cuda-13.0", 13000)
    monkeypatch.setattr(cuda.pathfinder, "find_static_lib", missing)
    for var in ("CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(kit / "bin"))
    monkeypatch.setattr(ch, "DEFAULT_ROOTS", ())
    assert link.find_cudadevrt() == str((kit / "lib64" / "libcudadevrt.a").resolve())


# --- this machine ---------------------------------------------------------------------------------------------------
def test_this_machine_devlaunch_and_conditional_agree():
    """Here too (no monkeypatching): whatever the search finds, both kernel sources get it, of NVRTC's major."""
    from cugraphlab.core.program import nvrtc_version
    from cugraphlab.graphs.conditional import conditional_options

    s = ch.search_include_dir()
    assert s.nvrtc_major == nvrtc_version()[0]
    if s.found is None:
        assert all(x.refused for x in s.looked)
        pytest.skip(f"no CUDA include folder for this NVRTC here: {s.summary()}")
    assert ch.header_cuda_version(Path(s.found))[0] == s.nvrtc_major
    assert conditional_options()[0] == f"-I{s.found}"
    try:
        devrt = link.find_cudadevrt()
    except UnsupportedError as e:
        pytest.skip(str(e))
    assert link.devrt_include_dir(devrt) == s.found
