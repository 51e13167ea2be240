"""The headers for kernels/conditional.cu come from the NVRTC in use, or not at all."""
import os
from pathlib import Path

from cugraphlab.core import cuda_headers as ch
from cugraphlab.core.cache import Cache
from cugraphlab.core.program import compile_source, nvrtc_version, resolve_arch

KERNELS = Path(ch.__file__).resolve().parents[2] / "kernels"
MAJOR = nvrtc_version()[0]


def include_dir(folder: Path, version: int) -> Path:
    """A fake CUDA include folder of the given CUDART_VERSION (e.g. 12090)."""
    (folder / "crt").mkdir(parents=True)
    for name in ch.NEEDED:
        (folder / name).write_text("// stub\n")
    (folder / "cuda_runtime_api.h").write_text(f"#pragma once\n#define CUDART_VERSION  {version}\n")
    return folder


def lib(path: Path, major: int) -> str:
    path.mkdir(parents=True)
    so = path / f"libnvrtc.so.{major}"
    so.write_bytes(b"")
    return str(so)


def test_toolkit_layout(tmp_path):
    so = lib(tmp_path / "cuda-12.9" / "lib64", 12)
    include_dir(tmp_path / "cuda-12.9" / "include", 12090)
    assert ch.pick_include_dir(so, 12) == str(tmp_path / "cuda-12.9" / "include")
    assert ch.pick_include_dir(so, 13) is None  # headers of another major are never taken


def test_toolkit_targets_layout(tmp_path):
    so = lib(tmp_path / "cuda" / "targets" / "x86_64-linux" / "lib", 13)
    include_dir(tmp_path / "cuda" / "targets" / "x86_64-linux" / "include", 13000)
    assert ch.pick_include_dir(so, 13) == str(tmp_path / "cuda" / "targets" / "x86_64-linux" / "include")


def test_cu12_wheels_use_cuda_runtime_include(tmp_path):
    nvidia = tmp_path / "site-packages" / "nvidia"
    so = lib(nvidia / "cuda_nvrtc" / "lib", 12)
    include_dir(nvidia / "cuda_runtime" / "include", 12080)
    include_dir(nvidia / "cu13" / "include", 13000)  # the image's CUDA 13 headers beside: not for NVRTC 12
    assert ch.pick_include_dir(so, 12) == str(nvidia / "cuda_runtime" / "include")


def test_cu13_wheels_and_a_toolkit_of_the_other_major(tmp_path):
    nvidia = tmp_path / "site-packages" / "nvidia"
    so = lib(nvidia / "cu13" / "lib", 13)
    include_dir(nvidia / "cuda_runtime" / "include", 12090)  # CUDA 12 headers in the same environment
    assert ch.pick_include_dir(so, 13) is None
    include_dir(nvidia / "cu13" / "include", 13020)
    assert ch.pick_include_dir(so, 13) == str(nvidia / "cu13" / "include")


def test_a_symlinked_library_is_followed(tmp_path):
    real = lib(tmp_path / "opt" / "cuda-12.6" / "lib64", 12)
    include_dir(tmp_path / "opt" / "cuda-12.6" / "include", 12060)
    (tmp_path / "usr" / "lib").mkdir(parents=True)
    link = tmp_path / "usr" / "lib" / "libnvrtc.so.12"
    os.symlink(real, link)
    assert ch.pick_include_dir(str(link), 12) == str(tmp_path / "opt" / "cuda-12.6" / "include")


def test_folders_without_every_header_or_a_version_are_refused(tmp_path):
    so = lib(tmp_path / "cuda" / "lib64", 12)
    inc = include_dir(tmp_path / "cuda" / "include", 12090)
    (inc / "crt" / "host_defines.h").unlink()
    assert ch.pick_include_dir(so, 12) is None
    (inc / "crt" / "host_defines.h").write_text("")
    (inc / "cuda_runtime_api.h").write_text("// no version\n")
    assert ch.pick_include_dir(so, 12) is None
    (inc / "cuda.h").write_text("#define CUDA_VERSION 12090\n")
    assert ch.pick_include_dir(so, 12) == str(inc)


def test_the_loaded_nvrtc_is_the_one_the_bindings_use():
    path = ch.loaded_nvrtc_path()
    assert path and os.path.basename(path).startswith(f"libnvrtc.so.{MAJOR}")


def test_the_real_pick_matches_nvrtc_or_is_none():
    """On this machine too: a folder of another CUDA major (say a /usr/local/cuda of 13 under NVRTC 12) is never it."""
    inc = ch.cuda_include_dir()
    assert inc is None or ch.header_cuda_version(Path(inc))[0] == MAJOR


def test_conditional_kernels_compile_with_what_is_picked():
    inc = ch.cuda_include_dir()
    opts = (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER") if inc else ()
    arch, kind = resolve_arch("sm_75")
    from cugraphlab.core.sources import read_headers

    c = compile_source((KERNELS / "conditional.cu").read_text(), "conditional", arch=arch, kind=kind,
                       options=opts, headers=read_headers(), cache=Cache(None))
    assert c.image[:4] == b"\x7fELF"
