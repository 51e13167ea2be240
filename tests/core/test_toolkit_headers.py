"""``#include <cuda_fp16.h>`` in a user's kernel: compile_source adds -I with the folder of the CUDA NVRTC belongs to
(core/cuda_headers.py ``toolkit_header_dir``), looked for in a pip install's layout built in a temporary folder."""
from __future__ import annotations

from pathlib import Path


def _cuda(root: Path, major: int, with_fp16: bool = True) -> Path:
    root.mkdir(parents=True)
    (root / "cuda_runtime_api.h").write_text(f"#define CUDART_VERSION {major * 1000 + 20}\n")
    if with_fp16:
        (root / "cuda_fp16.h").write_text("// half\n")
    return root


def test_the_wheel_beside_nvrtc_of_nvrtcs_major_is_taken(tmp_path):
    from cugraphlab.core.cuda_headers import toolkit_header_dir

    wheel = tmp_path / "site-packages" / "nvidia" / "cu13"
    (wheel / "lib").mkdir(parents=True)
    (wheel / "lib" / "libnvrtc.so.13").write_text("")
    inc = _cuda(wheel / "include", 13)
    other = _cuda(tmp_path / "cuda12" / "include", 12)
    kw = dict(nvcc=None, pathfinder=False, default_roots=())
    assert toolkit_header_dir("cuda_fp16.h", 13, nvrtc_lib=str(wheel / "lib" / "libnvrtc.so.13"), environ={},
                              **kw) == str(inc)
    # a CUDA 12 folder first (CUDA_HOME) is passed over for NVRTC 13, taken for NVRTC 12
    env = {"CUDA_HOME": str(other.parent)}
    assert toolkit_header_dir("cuda_fp16.h", 13, nvrtc_lib=None, environ=env, **kw) is None
    assert toolkit_header_dir("cuda_fp16.h", 12, nvrtc_lib=None, environ=env, **kw) == str(other)
    assert toolkit_header_dir("cuda_bf16.h", 13, nvrtc_lib=str(wheel / "lib" / "libnvrtc.so.13"), environ={},
                              **kw) is None


def test_compile_source_adds_the_include_folder_only_when_needed(monkeypatch):
    from cugraphlab.core import program

    monkeypatch.setattr(program, "_header_dir", lambda h: "/opt/cuda/include")
    src = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k() {}\n"
    assert program._toolkit_includes(src, {}, ()) == ("-I/opt/cuda/include",)
    assert program._toolkit_includes(src, {}, ("-I/mine",)) == ()  # the caller's own folder wins
    assert program._toolkit_includes(src, {"cuda_fp16.h": "// given"}, ()) == ()
    assert program._toolkit_includes('extern "C" __global__ void k() {}', {}, ()) == ()
