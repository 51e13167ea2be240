"""The CUDA headers that go with the NVRTC in use: the one search for ``cuda_device_runtime_api.h``.

Two kernel sources include that header: kernels/conditional.cu (``cudaGraphSetConditional``; it can do without it)
and kernels/devlaunch.cu (device graph launch; it cannot). Both take the folder this module finds, so they never
disagree about which CUDA they compile against.

Headers must come from the CUDA that NVRTC belongs to, not from whatever CUDA the machine has: NVRTC 12.9 with CUDA 13
headers (or the reverse) can fail or compile something else. So a folder is taken only if it holds every header the
device runtime header pulls in (NEEDED: under NVRTC it includes ``driver_types.h`` and ``crt/host_defines.h``) and the
CUDA version written in it (``CUDART_VERSION`` in cuda_runtime_api.h, else ``CUDA_VERSION`` in cuda.h, both
``major * 1000 + minor * 10``) has NVRTC's major. The folders are tried in this order, the first that passes wins:

  1. beside the NVRTC library loaded in this process (/proc/self/maps, else cuda.pathfinder):
       toolkit or conda:  <root>/lib64/libnvrtc.so.N          -> <root>/include, <root>/targets/<arch>/include
       CUDA 13 wheels:    .../nvidia/cu13/lib/libnvrtc.so.13   -> .../nvidia/cu13/include
       CUDA 12 wheels:    .../nvidia/cuda_nvrtc/lib/libnvrtc.so.12 -> .../nvidia/cuda_runtime/include
  2. ``$CUDA_HOME``, then ``$CUDA_PATH``: <root>/include, <root>/targets/*/include;
  3. the ``nvcc`` on ``PATH``: <its bin>/../include and targets/*/include (symbolic links followed), then, for an
     nvcc that is a wrapper script, the ``-I`` folders ``nvcc -v --dryrun`` says it passes (asked once per nvcc);
  4. ``cuda.pathfinder.find_nvidia_header_directory("cudart")``;
  5. beside libraries the caller names (core.link passes libcudadevrt.a), by the rules of step 1; this step comes
     late so that conditional.cu (which names none) and devlaunch.cu agree wherever an earlier step finds a folder;
  6. NVIDIA's default install prefix, ``/usr/local/cuda``.

A CUDA 13 wheel environment often has ``nvidia/cu13/include/cuda_device_runtime_api.h`` (nvidia-cuda-runtime) but not
``crt/host_defines.h`` (nvidia-cuda-crt, a wheel of its own since CUDA 13): that folder is refused, and a toolkit
further down the list is taken. Every folder looked at is kept with the reason it was refused (``HeaderSearch``), so
an error can name them all.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HEADER", "NEEDED", "HEADERS_INSTALL", "DEFAULT_ROOTS", "Looked", "HeaderSearch", "search_include_dir",
           "require_include_dir", "cuda_include_dir", "loaded_nvrtc_path", "candidate_include_dirs",
           "nvcc_include_dirs", "header_cuda_version", "check_include_dir", "pick_include_dir", "TOOLKIT_HEADERS",
           "toolkit_header_dir"]

HEADER = "cuda_device_runtime_api.h"
# The header and what it includes (a folder with only some of them, like nvidia/cu13/include with nvrtc.h, is no use).
NEEDED = (HEADER, "driver_types.h", "crt/host_defines.h")
HEADERS_INSTALL = ("set CUDA_HOME to a CUDA toolkit of NVRTC's major, or pip install 'cuda-toolkit[cudart,crt]==13.*' "
                   "(CUDA 13: nvidia-cuda-runtime and nvidia-cuda-crt) or 'cuda-toolkit[cudart]==12.*' (CUDA 12)")
#: Where NVIDIA's installers put the toolkit on Linux (looked at last).
DEFAULT_ROOTS = ("/usr/local/cuda",)
_SONAME = re.compile(r"libnvrtc\.so\.(\d+)")
_VERSION_DEFINES = (("cuda_runtime_api.h", "CUDART_VERSION"), ("cuda.h", "CUDA_VERSION"))
_ENV_ROOTS = ("CUDA_HOME", "CUDA_PATH")


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


# --- where to look ------------------------------------------------------------------------------------------------
def candidate_include_dirs(lib_path: str) -> list[Path]:
    """Include folders that may belong to the CUDA library at ``lib_path`` (libnvrtc.so, libcudadevrt.a, ...), most
    likely first (unchecked)."""
    out: list[Path] = []
    for lib in dict.fromkeys((Path(lib_path), Path(os.path.realpath(lib_path)))):
        libdir = lib.parent
        if libdir.parent.parent.name == "nvidia":  # a wheel: site-packages/nvidia/<component>/lib
            nvidia = libdir.parent.parent
            out += [libdir.parent / "include", nvidia / "cuda_runtime" / "include", nvidia / "cu13" / "include"]
        out += _root_include_dirs(libdir.parent)  # lib64/, lib/ or targets/<arch>/lib -> one level up
    return list(dict.fromkeys(out))


def _root_include_dirs(root: Path) -> list[Path]:
    """<root>/include and <root>/targets/*/include; for a target root (<top>/targets/<arch>), <top>/include too."""
    out = [root / "include"]
    if root.parent.name == "targets":
        out.append(root.parent.parent / "include")
    else:
        try:
            out += sorted((root / "targets").glob("*/include"))
        except OSError:
            pass
    return out


@functools.lru_cache(maxsize=8)
def _nvcc_dryrun_includes(nvcc: str, mtime_ns: int) -> tuple[str, ...]:
    """The -I folders ``nvcc -v --dryrun`` reports in its INCLUDES line (cached per nvcc file and its mtime)."""
    try:
        r = subprocess.run([nvcc, "-v", "--dryrun", "-c", "-x", "cu", os.devnull, "-o", os.devnull],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ()
    out: list[str] = []
    for line in (r.stderr + "\n" + r.stdout).splitlines():
        m = re.match(r"#\$\s*INCLUDES=(.*)", line.strip())
        if m:
            out += [os.path.normpath(p) for p in re.findall(r'-I"?([^"\s]+)"?', m.group(1))]
    return tuple(dict.fromkeys(out))


def nvcc_include_dirs(nvcc: str, *, ask: bool = True) -> Iterator[Path]:
    """Include folders of the toolkit the ``nvcc`` at ``nvcc`` belongs to: <bin>/../include (links followed), then
    (``ask``) those ``nvcc -v --dryrun`` names, asked only when the caller gets that far."""
    real = Path(os.path.realpath(nvcc))
    yield from _root_include_dirs(real.parent.parent)
    if ask:
        try:
            mtime = real.stat().st_mtime_ns
        except OSError:
            return
        for p in _nvcc_dryrun_includes(str(real), mtime):
            yield Path(p)


def _pathfinder_cudart_dir() -> Iterator[Path]:
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        found = find_nvidia_header_directory("cudart")
    except Exception:  # an old cuda.pathfinder without it, or one that does not know "cudart"
        return
    if found:
        yield Path(found)


def _candidates(nvrtc_lib: str | None, beside: Iterable[str], environ: Mapping[str, str], nvcc: str | None,
                pathfinder: bool, default_roots: Iterable[str]) -> Iterator[tuple[Path, str]]:
    """(folder, how it was found), in the order of the module docstring; lazily, so later steps run only if needed."""
    if nvrtc_lib:
        for p in candidate_include_dirs(nvrtc_lib):
            yield p, f"beside NVRTC {nvrtc_lib}"
    for var in _ENV_ROOTS:
        if environ.get(var):
            for p in _root_include_dirs(Path(environ[var])):
                yield p, f"${var}"
    if nvcc:
        for p in nvcc_include_dirs(nvcc):
            yield p, f"nvcc {nvcc}"
    if pathfinder:
        for p in _pathfinder_cudart_dir():
            yield p, "cuda.pathfinder"
    for lib in beside:
        for p in candidate_include_dirs(lib):
            yield p, f"beside {os.path.basename(lib)}"
    for root in default_roots:
        for p in _root_include_dirs(Path(root)):
            yield p, "default prefix"


# --- checking one folder ------------------------------------------------------------------------------------------
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


def check_include_dir(folder: Path, nvrtc_major: int) -> str:
    """"" when ``folder`` holds every NEEDED header and its CUDA major is ``nvrtc_major``; else why not (short)."""
    if not folder.is_dir():
        return "no such folder"
    missing = [f for f in NEEDED if not (folder / f).is_file()]
    if missing:
        return "lacks " + ", ".join(missing)
    v = header_cuda_version(folder)
    if v is None:
        return "no CUDART_VERSION in cuda_runtime_api.h nor CUDA_VERSION in cuda.h"
    if v[0] != nvrtc_major:
        return f"CUDA {v[0]}.{v[1]}, NVRTC is {nvrtc_major}"
    return ""


# --- the search ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Looked:
    """One folder the search looked at: where, how it came up, and why it was refused ("" when taken)."""

    folder: str
    via: str
    refused: str

    def __str__(self) -> str:
        return f"{self.folder} ({self.via}: {self.refused or 'taken'})"


@dataclass(frozen=True)
class HeaderSearch:
    """What ``search_include_dir`` found: the folder (or None), NVRTC's major, and every folder looked at in order."""

    found: str | None
    nvrtc_major: int | None
    looked: tuple[Looked, ...]

    @property
    def via(self) -> str:
        """How the folder found came up ("" when none was)."""
        return next((x.via for x in self.looked if not x.refused), "")

    def summary(self) -> str:
        """One line: every folder looked at, with the reason each was refused."""
        if not self.looked:
            return "looked nowhere (NVRTC could not be loaded)" if self.nvrtc_major is None else "looked nowhere"
        return "looked in " + "; ".join(str(x) for x in self.looked)


def search_include_dir(nvrtc_major: int | None = None, *, nvrtc_lib: str | None | bool = True,
                       beside: Iterable[str] = (), environ: Mapping[str, str] | None = None,
                       nvcc: str | None | bool = True, pathfinder: bool = True,
                       default_roots: Iterable[str] | None = None) -> HeaderSearch:
    """The CUDA include folder for the NVRTC in use, with the trail of every folder looked at.

    Parameters: ``nvrtc_major`` (default: ask NVRTC); ``nvrtc_lib`` the NVRTC library file (True: the one loaded,
    ``loaded_nvrtc_path``; None/False: skip that step); ``beside`` more library files whose folders to try (step 5);
    ``environ`` for CUDA_HOME/CUDA_PATH (default os.environ); ``nvcc`` the nvcc to ask (True: the one on PATH;
    None/False: skip); ``pathfinder`` whether to ask cuda.pathfinder; ``default_roots`` the last roots to try
    (default DEFAULT_ROOTS). The keyword arguments let tests build a layout in a temporary folder and look only there.
    Returns a HeaderSearch; never raises for a missing folder (``require_include_dir`` does). No CUDA API call but
    nvrtcVersion; the folders are the ones the CUDA Installation Guide for Linux and the wheels' layouts name.
    """
    if nvrtc_major is None:
        from ._calls import nv

        try:
            nvrtc_major = int(nv("nvrtcVersion")[0])
        except Exception:
            return HeaderSearch(None, None, ())
    lib = loaded_nvrtc_path() if nvrtc_lib is True else (nvrtc_lib or None)
    exe = shutil.which("nvcc") if nvcc is True else (nvcc or None)
    env = os.environ if environ is None else environ
    roots = DEFAULT_ROOTS if default_roots is None else tuple(default_roots)
    looked: list[Looked] = []
    seen: set[str] = set()
    for folder, via in _candidates(lib, tuple(beside), env, exe, pathfinder, roots):
        key = os.path.realpath(folder)
        if key in seen:
            continue
        seen.add(key)
        refused = check_include_dir(folder, nvrtc_major)
        looked.append(Looked(str(folder), via, refused))
        if not refused:
            return HeaderSearch(str(folder), nvrtc_major, tuple(looked))
    return HeaderSearch(None, nvrtc_major, tuple(looked))


def require_include_dir(feature: str, nvrtc_major: int | None = None, *, beside: Iterable[str] = (),
                        **search) -> str:
    """The folder ``search_include_dir`` finds, or UnsupportedError (one line) naming every folder it looked in."""
    from .errors import UnsupportedError

    s = search_include_dir(nvrtc_major, beside=beside, **search)
    if s.found:
        return s.found
    major = "NVRTC's" if s.nvrtc_major is None else str(s.nvrtc_major)
    raise UnsupportedError(f"{feature}: no CUDA {major} include folder with {', '.join(NEEDED)}; "
                           f"{s.summary()}: {HEADERS_INSTALL}")


def pick_include_dir(lib_path: str | None, nvrtc_major: int) -> str | None:
    """The first folder beside the NVRTC library ``lib_path`` holding every NEEDED header whose CUDA major is
    ``nvrtc_major``, or None (step 1 alone: no environment, nvcc, pathfinder or default prefix)."""
    if not lib_path:
        return None
    return search_include_dir(nvrtc_major, nvrtc_lib=lib_path, environ={}, nvcc=None, pathfinder=False,
                              default_roots=()).found


#: Toolkit headers a user's kernel may include that NVRTC does not bring itself: ``compile_source`` adds ``-I`` with
#: the folder ``toolkit_header_dir`` finds for them (a pip install has them in nvidia-cuda-runtime's wheel).
TOOLKIT_HEADERS = ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h")


def toolkit_header_dir(header: str, nvrtc_major: int | None = None, **search) -> str | None:
    """A folder holding ``header`` (``cuda_fp16.h``, ...) of the CUDA that NVRTC belongs to, looked for in the
    order of the module docstring (a folder whose CUDA version cannot be read is taken only when no other has
    the header); None when none has it. ``search``: ``search_include_dir``'s keywords (tests)."""
    if nvrtc_major is None:
        from ._calls import nv

        try:
            nvrtc_major = int(nv("nvrtcVersion")[0])
        except Exception:
            return None
    nvrtc_lib = search.get("nvrtc_lib", True)
    lib = loaded_nvrtc_path() if nvrtc_lib is True else (nvrtc_lib or None)
    nvcc = search.get("nvcc", True)
    exe = shutil.which("nvcc") if nvcc is True else (nvcc or None)
    env = os.environ if search.get("environ") is None else search["environ"]
    roots = DEFAULT_ROOTS if search.get("default_roots") is None else tuple(search["default_roots"])
    unknown = None
    seen: set[str] = set()
    for folder, _via in _candidates(lib, tuple(search.get("beside", ())), env, exe, search.get("pathfinder", True),
                                    roots):
        key = os.path.realpath(folder)
        if key in seen or not (folder / header).is_file():
            continue
        seen.add(key)
        v = header_cuda_version(folder)
        if v is None:
            unknown = unknown or str(folder)
        elif v[0] == nvrtc_major:
            return str(folder)
    return unknown


def cuda_include_dir(beside: Iterable[str] = ()) -> str | None:
    """A CUDA include folder that belongs to the NVRTC in use (``search_include_dir``), or None (then
    kernels/conditional.cu declares the two names itself)."""
    return search_include_dir(beside=beside).found
