"""Relocatable device code: NVRTC with ``-rdc``, then nvJitLink with the device runtime, to one cubin.

A kernel that calls ``cudaGraphLaunch`` on the device (device graph launch) calls into the CUDA device runtime, a
static library (``libcudadevrt.a``) that must be linked into the image, so it cannot be compiled straight to a cubin
as the chain's kernels are. The steps, in order:

    nvrtcCreateProgram(source, headers)                      # with -I<folder of cuda_device_runtime_api.h>
    nvrtcCompileProgram(-rdc=true -dlto -arch=sm_90)         # relocatable, as LTO-IR (or -rdc=true alone: PTX)
    nvrtcGetLTOIR                                            # the IR, not yet machine code
    nvJitLinkCreate(-arch=sm_90 -lto)                        # the linker (cuda.bindings.nvjitlink)
    nvJitLinkAddData(LTOIR, ir) ; nvJitLinkAddFile(LIBRARY, libcudadevrt.a)
    nvJitLinkComplete                                        # link-time optimisation, then ptxas: one cubin
    nvJitLinkGetLinkedCubin ; nvJitLinkDestroy
    cuModuleLoadData(cubin)                                  # as any other module

``libcudadevrt.a`` is found the way cuda.pathfinder finds static libraries (``find_static_lib("cudadevrt")``:
the CUDA runtime wheel, ``nvidia/cu13/lib`` for CUDA 13 or ``nvidia/cuda_runtime/lib`` for CUDA 12, then conda,
then ``$CUDA_HOME``/``$CUDA_PATH``), else in the toolkit of the ``nvcc`` on PATH or under /usr/local/cuda. The
header comes from the CUDA that NVRTC belongs to, found by the one search of core.cuda_headers that the conditional
kernels use too (beside NVRTC, $CUDA_HOME/$CUDA_PATH, the nvcc on PATH, cuda.pathfinder, beside the library found,
/usr/local/cuda), and only when its CUDA major is NVRTC's; where none fits, the error names every folder looked in.
The linked cubin is cached like any NVRTC result (core.cache), keyed by the source, headers, both option lists, arch,
the NVRTC and nvJitLink versions, the library's own sha256 and the package version.

Architectures: the CUDA Programming Guide ("Device Graph Launch") sets no compute capability of its own: "This
functionality is only available on systems which support unified addressing" (graphs.device_launch checks
CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING); device graph launch came with CUDA 12.0 and its device runtime (CDP2), whose
oldest target NVRTC 12 builds is sm_50 and NVRTC 13 sm_75. So the gate is the documentation's, not an arch:
``require_device_launch_arch`` refuses nothing and marks anything but sm_90 (where cugraphlab measured it, on the
H200) as not measured here.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__
from ._calls import jit, nvjitlink_module
from .cache import Cache, default_cache
from .errors import CugraphlabError, InvalidArgumentError, UnsupportedError
from .program import BASE_OPTIONS, Compiled, compile_source, nvrtc_version

__all__ = [
    "RDC_MARKER", "needs_device_runtime", "DEVRT_INSTALL", "find_cudadevrt", "devrt_include_dir",
    "nvjitlink_version", "require_nvjitlink", "require_device_launch_arch",
    "DEVICE_LAUNCH_MEASURED", "LinkPlan", "link_plan", "compile_relocatable", "link_images", "build_relocatable",
    "load_relocatable",
]

#: A source holding this text needs -rdc and the device runtime (kernels/devlaunch.cu says it in its first line).
RDC_MARKER = "cugraphlab: relocatable device code + device runtime"
DEVRT_INSTALL = ("install cugraphlab's devlaunch extra: pip install 'cugraphlab[devlaunch]' (CUDA 13) or "
                 "'cugraphlab[cu12,devlaunch-cu12]' (CUDA 12), whose nvidia-cuda-runtime (-cu12) wheel ships "
                 "libcudadevrt.a, or set CUDA_HOME to a CUDA toolkit")
DEVICE_LAUNCH_MEASURED = ((9, 0),)
_FEATURE = "device graph launch"


def needs_device_runtime(source: str) -> bool:
    """Whether ``source`` is marked as needing relocatable device code and the device runtime (RDC_MARKER)."""
    return RDC_MARKER in source


# --- finding the pieces ------------------------------------------------------------------------------------------
def _toolkit_roots() -> list[Path]:
    """Toolkit roots beyond cuda.pathfinder's: the one of the nvcc on PATH (links followed), then the default prefix."""
    import shutil

    from .cuda_headers import DEFAULT_ROOTS

    roots = []
    exe = shutil.which("nvcc")
    if exe:
        roots.append(Path(os.path.realpath(exe)).parent.parent)
    return roots + [Path(r) for r in DEFAULT_ROOTS]


def _own_search(*, wheels: bool = True) -> str | None:
    """The places cuda.pathfinder looks for libcudadevrt.a (``wheels``: site-packages too, for a pathfinder too old
    to have find_static_lib), then the nvcc on PATH's toolkit and /usr/local/cuda."""
    import site
    import sys

    if wheels:
        roots = [Path(p) for p in (*site.getsitepackages(), site.getusersitepackages(), *sys.path) if p]
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_runtime/lib"):
            for root in roots:
                f = root / sub / "libcudadevrt.a"
                if f.is_file():
                    return str(f.resolve())
    bases: list[tuple[str | None, tuple[str, ...]]] = [
        (os.environ.get(env), rels)
        for env, rels in (("CONDA_PREFIX", ("lib",)), ("CUDA_PATH", ("lib64", "lib")), ("CUDA_HOME", ("lib64", "lib")))]
    bases += [(str(r), ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"))
              for r in _toolkit_roots()]
    for base, rels in bases:
        if not base:
            continue
        for rel in rels:
            f = Path(base) / rel / "libcudadevrt.a"
            if f.is_file():
                return str(f.resolve())
    return None


def find_cudadevrt() -> str:
    """The absolute path of libcudadevrt.a (cuda.pathfinder.find_static_lib("cudadevrt"), else the nvcc on PATH's
    toolkit or /usr/local/cuda); UnsupportedError, one line with what to install, when there is none."""
    try:
        from cuda.pathfinder import find_static_lib
    except ImportError:
        find_static_lib = None
    if find_static_lib is not None:
        try:
            return str(find_static_lib("cudadevrt"))
        except Exception as e:  # StaticLibNotFoundError (a RuntimeError), ValueError on an odd platform
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        path = _own_search(wheels=False)
    else:
        path = _own_search()
        reason = "cuda.pathfinder has no find_static_lib (pip install -U cuda-pathfinder)"
    if path:
        return path
    raise UnsupportedError(f"{_FEATURE}: libcudadevrt.a not found ({reason}; nor beside the nvcc on PATH or under "
                           f"/usr/local/cuda): {DEVRT_INSTALL}")


def devrt_include_dir(devrt_path: str | None = None, nvrtc_major: int | None = None) -> str:
    """The folder holding cuda_device_runtime_api.h for the NVRTC in use: core.cuda_headers' one search (the same
    the conditional kernels use), with the folders beside libcudadevrt.a added as its step 5. UnsupportedError (one
    line naming every folder looked in, and why each was refused) when none fits."""
    from .cuda_headers import require_include_dir

    lib = devrt_path or find_cudadevrt()
    return require_include_dir(_FEATURE, nvrtc_major, beside=(lib,))


def nvjitlink_version() -> tuple[int, int]:
    """nvJitLink's (major, minor)."""
    return tuple(jit("version"))


def require_nvjitlink() -> tuple[int, int]:
    """nvJitLink's version, or UnsupportedError (one line with what to install) when it cannot be used."""
    from ._calls import NVJITLINK_INSTALL

    try:
        return nvjitlink_version()
    except UnsupportedError:
        raise
    except CugraphlabError:
        raise
    except Exception as e:  # the library would not load: FunctionNotFoundError, DynamicLibNotFoundError, ...
        raise UnsupportedError(f"{_FEATURE}: nvJitLink is not usable (its library could not be loaded): "
                               f"{NVJITLINK_INSTALL}") \
            from e


def require_device_launch_arch(compute_capability: tuple[int, int]) -> str:
    """"" for an arch device graph launch was measured on (sm_90), else a note that this arch is not measured here;
    never a refusal: the CUDA documentation asks for unified addressing, not an arch (module docstring)."""
    cc = tuple(compute_capability)
    arch = "sm_%d%d" % cc
    if cc in DEVICE_LAUNCH_MEASURED:
        return ""
    return f"{_FEATURE} is measured on sm_90 only; {arch} is not measured here"


# --- the plan: every option and the cache key, computed without compiling ----------------------------------------
@dataclass(frozen=True)
class LinkPlan:
    """Everything one relocatable build depends on: what NVRTC and nvJitLink are told, and the cache key."""

    name: str
    arch: str  # "sm_90"
    lto: bool  # LTO-IR (-dlto, nvJitLink -lto) or PTX
    include_dir: str
    devrt: str  # path of libcudadevrt.a
    nvrtc_options: tuple[str, ...]  # extra options for compile_source (it adds BASE_OPTIONS and the arch)
    link_options: tuple[str, ...]
    key: str

    @property
    def intermediate(self) -> str:
        return "ltoir" if self.lto else "ptx"


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _arch_number(arch: str) -> str:
    if not arch.startswith("sm_") or not arch[3:].rstrip("af").isdigit():
        raise InvalidArgumentError(f"relocatable builds link machine code: arch must look like sm_90, got {arch!r}")
    return arch[3:]


def link_plan(source: str, name: str, *, arch: str, headers: dict[str, str] | None = None,
              options: tuple[str, ...] = (), lto: bool = True, devrt: str | None = None,
              include_dir: str | None = None, versions: tuple | None = None) -> LinkPlan:
    """The options and cache key of one build (no compile). ``versions``: (nvrtc, nvjitlink) to use in the key
    instead of asking the libraries (tests); ``devrt``/``include_dir`` default to finding them."""
    _arch_number(arch)
    devrt = devrt or find_cudadevrt()
    include_dir = include_dir or devrt_include_dir(devrt)
    nvrtc_opts = ("-rdc=true", *(("-dlto",) if lto else ()), f"-I{include_dir}", *options)
    link_opts = (f"-arch={arch}", *(("-lto",) if lto else ()))
    nvrtc_v, jit_v = versions or (nvrtc_version(), nvjitlink_version())
    h = hashlib.sha256()
    for part in (source, json.dumps(sorted((headers or {}).items())), json.dumps([*BASE_OPTIONS, *nvrtc_opts]),
                 json.dumps(list(link_opts)), arch, "lto" if lto else "ptx", "%d.%d" % tuple(nvrtc_v),
                 "%d.%d" % tuple(jit_v), _file_sha256(devrt), __version__):
        h.update(str(part).encode())
        h.update(b"\0")
    return LinkPlan(name, arch, lto, include_dir, devrt, nvrtc_opts, link_opts, "link-" + h.hexdigest())


# --- the steps ---------------------------------------------------------------------------------------------------
def compile_relocatable(source: str, plan: LinkPlan, headers: dict[str, str] | None = None,
                        cache: Cache | None = None) -> Compiled:
    """NVRTC with ``-rdc=true`` (and ``-dlto``): LTO-IR or PTX of ``source`` (core.program.compile_source)."""
    kind = plan.intermediate
    target = plan.arch if plan.lto else "compute_" + _arch_number(plan.arch)
    return compile_source(source, plan.name, arch=target, kind=kind, headers=headers, options=plan.nvrtc_options,
                          cache=cache)


def link_images(inputs: list[tuple[str, bytes, str]], plan: LinkPlan) -> tuple[bytes, str]:
    """nvJitLink: link ``inputs`` ((name, image, kind) with kind "ltoir", "ptx" or "cubin") with libcudadevrt.a
    into one cubin for ``plan.arch``. Returns (cubin, info log). LinkError names the failing step and the log."""
    j = nvjitlink_module()
    kinds = {"ltoir": j.InputType.LTOIR, "ptx": j.InputType.PTX, "cubin": j.InputType.CUBIN}
    opts = list(plan.link_options)
    names = tuple(n for n, _, _ in inputs) + (os.path.basename(plan.devrt),)
    handle = jit("create", len(opts), opts, options=plan.link_options)
    try:
        for name, image, kind in inputs:
            jit("add_data", handle, kinds[kind], image, len(image), name, inputs=names, options=plan.link_options)
        jit("add_file", handle, j.InputType.LIBRARY, plan.devrt, inputs=names, options=plan.link_options)
        jit("complete", handle, inputs=names, options=plan.link_options)
        size = jit("get_linked_cubin_size", handle)
        cubin = bytearray(size)
        jit("get_linked_cubin", handle, cubin)
        log = ""
        n = jit("get_info_log_size", handle)
        if n > 1:
            buf = bytearray(n)
            jit("get_info_log", handle, buf)
            log = bytes(buf).rstrip(b"\0").decode(errors="replace")
        return bytes(cubin), log
    finally:
        jit("destroy", handle)


def build_relocatable(source: str, name: str, *, arch: str, headers: dict[str, str] | None = None,
                      options: tuple[str, ...] = (), lto: bool = True, cache: Cache | None = None) -> Compiled:
    """``source`` compiled relocatable and linked with the device runtime: a Compiled of kind "cubin", cached.

    UnsupportedError (one line) when nvJitLink or libcudadevrt.a is missing; CompileError from NVRTC, LinkError from
    nvJitLink otherwise. ``seconds`` covers both steps; ``log`` holds both logs.
    """
    t0 = time.perf_counter()
    require_nvjitlink()
    cache = default_cache() if cache is None else cache
    plan = link_plan(source, name, arch=arch, headers=headers, options=options, lto=lto)
    hit = cache.get(plan.key)
    if hit is not None:
        payload, meta = hit
        return Compiled(name, "cubin", arch, payload, meta.get("log", ""), {}, cache_hit=True,
                        seconds=time.perf_counter() - t0, key=plan.key)
    ir = compile_relocatable(source, plan, headers, cache)
    cubin, link_log = link_images([(f"{name}.{ir.kind}", ir.image, ir.kind)], plan)
    log = "\n".join(s for s in (ir.log.strip(), link_log.strip()) if s)
    cache.put(plan.key, cubin, {"name": name, "kind": "cubin", "arch": arch, "log": log,
                                "link_options": list(plan.link_options), "devrt": os.path.basename(plan.devrt)})
    return Compiled(name, "cubin", arch, cubin, log, {}, cache_hit=False, seconds=time.perf_counter() - t0,
                    key=plan.key)


def load_relocatable(device, name: str, kernel_names: tuple[str, ...], *, cache: Cache | None = None,
                     lto: bool = True, options: tuple[str, ...] = ()):
    """kernels/<name>.cu built relocatable for ``device`` and loaded: a KernelSet (owned by the caller) whose
    ``kernels`` are ``kernel_names``; UnsupportedError where the arch, nvJitLink or libcudadevrt.a cannot."""
    from .module import KernelSet, Module
    from .sources import read_headers, read_source

    t0 = time.perf_counter()
    require_device_launch_arch(device.compute_capability)
    compiled = build_relocatable(read_source(name), name, arch=device.arch, headers=read_headers(),
                                 options=options, lto=lto, cache=cache)
    module = Module(device, compiled.image)
    try:
        kernels = {k: module.kernel(k) for k in kernel_names}
    except BaseException:
        module.close()
        raise
    return KernelSet(device, {name: module}, kernels, {name: compiled}, time.perf_counter() - t0)
