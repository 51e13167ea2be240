"""The CUDA headers that go with the NVRTC in use, for kernels/conditional.cu (cuda_device_runtime_api.h).

Headers must come from the CUDA that NVRTC belongs to, not from whatever toolkit the machine has: NVRTC 12.9 with
CUDA 13 headers (or the reverse) can fail or compile something else. So the folders tried are derived from the
NVRTC library actually loaded in this process, and one is taken only if the CUDA version written in its headers
has NVRTC's major. Where none fits, no -I is passed and kernels/conditional.cu declares the two names itself (the
same cubin, byte for byte).

  toolkit or conda:  <root>/lib64/libnvrtc.so.N          -> <root>/include, <root>/targets/<arch>/include
  CUDA 13 wheels:    .../nvidia/cu13/lib/libnvrtc.so.13   -> .../nvidia/cu13/include
  CUDA 12 wheels:    .../nvidia/cuda_nvrtc/lib/libnvrtc.so.12 -> .../nvidia/cuda_runtime/include
"""
from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["HEADER", "NEEDED", "cuda_include_dir", "loaded_nvrtc_path", "candidate_include_dirs",
           "header_cuda_version", "pick_include_dir"]

HEADER = "cuda_device_runtime_api.h"
# The header and what it includes (a folder with only some of them, like nvidia/cu13/include with nvrtc.h, is no use).
NEEDED = (HEADER, "driver_types.h", "crt/host_defines.h")
_SONAME = re.compile(r"libnvrtc\.so\.(\d+)")
_VERSION_DEFINES = (("cuda_runtime_api.h", "CUDART_VERSION"), ("cuda.h", "CUDA_VERSION"))


def loaded_nvrtc_path() -> str | None:
    """The file of the NVRTC library this process uses (loading it if needed), or None if that cannot be told."""
    from ._calls import nv

    try:
        nv("nvrtcVersion")  # make sure the bindings have loaded it
    except Exception:
        return None
    try:  # what the dynamic loader really mapped: the ground truth on Linux
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(" ")[-1]
                if _SONAME.search(os.path.basename(path)):
                    return path
    except OSError:
        pass
    try:  # elsewhere: ask cuda.pathfinder, which the bindings load NVRTC through (its answer is cached per process)
        from cuda.pathfinder import load_nvidia_dynamic_lib

        return load_nvidia_dynamic_lib("nvrtc").abs_path
    except Exception:
        return None


def candidate_include_dirs(lib_path: str) -> list[Path]:
    """Include folders that may belong to the NVRTC library at ``lib_path``, most likely first (unchecked)."""
    out: list[Path] = []
    for lib in dict.fromkeys((Path(lib_path), Path(os.path.realpath(lib_path)))):
        libdir = lib.parent
        if libdir.parent.parent.name == "nvidia":  # a wheel: site-packages/nvidia/<component>/lib
            nvidia = libdir.parent.parent
            out += [libdir.parent / "include", nvidia / "cuda_runtime" / "include", nvidia / "cu13" / "include"]
        root = libdir.parent  # lib64/, lib/ or targets/<arch>/lib -> one level up is the (target) root
        out += [root / "include"]
        if root.parent.name == "targets":
            out += [root.parent.parent / "include"]
        else:
            out += sorted((root / "targets").glob("*/include"))
    return list(dict.fromkeys(out))


def header_cuda_version(folder: Path) -> tuple[int, int] | None:
    """The CUDA version written in a folder's headers (CUDART_VERSION or CUDA_VERSION), or None."""
    for name, macro in _VERSION_DEFINES:
        try:
            text = (folder / name).read_text(errors="replace")
        except OSError:
            continue
        m = re.search(rf"^\s*#\s*define\s+{macro}\s+(\d+)", text, re.M)
        if m:
            v = int(m.group(1))
            return v // 1000, (v % 1000) // 10
    return None


def pick_include_dir(lib_path: str | None, nvrtc_major: int) -> str | None:
    """The first candidate folder holding every NEEDED header whose CUDA major is ``nvrtc_major``, or None."""
    if not lib_path:
        return None
    for folder in candidate_include_dirs(lib_path):
        if not all((folder / f).is_file() for f in NEEDED):
            continue
        v = header_cuda_version(folder)
        if v is not None and v[0] == nvrtc_major:
            return str(folder)
    return None


def cuda_include_dir() -> str | None:
    """A CUDA include folder that belongs to the NVRTC in use, or None (then conditional.cu declares the names)."""
    from ._calls import nv

    try:
        major = nv("nvrtcVersion")[0]
    except Exception:
        return None
    return pick_include_dir(loaded_nvrtc_path(), major)
