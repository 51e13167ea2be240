"""The package's kernel set, compiled as ``cugraphlab compile`` shows it: the chain's kernels first, then the probes.

No GPU is needed: the target is the GPU's own arch when a driver and device answer (read from the device's
attributes, with no context created), else the newest arch NVRTC knows. Wraps nvrtcCreateProgram /
nvrtcCompileProgram / nvrtcGetCUBIN (nvrtcGetPTX) per source through ``core.program.compile_source``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core import link
from ..core.cache import Cache, default_cache
from ..core.device import compute_capability_of
from ..core.errors import NoDeviceError, UnsupportedError
from ..core.program import Compiled, compile_source, nvrtc_version, resolve_arch
from ..core.sources import kernel_names, read_headers, read_source
from .ops import CHAIN_KERNELS

__all__ = ["CompileReport", "compile_kernel_set", "kernel_order"]


@dataclass
class CompileReport:
    """What ``cugraphlab compile`` did: for which target, why that one, and each kernel source's record."""

    target: str  # e.g. "sm_90" or "compute_120"
    kind: str  # "cubin" or "ptx"
    note: str  # how the target was chosen
    nvrtc: str  # "13.0"
    cache_folder: str | None  # the folder (and why it is not usable, if so); None: the cache was off
    compiled: list[Compiled] = field(default_factory=list)


def kernel_order(names) -> list[str]:
    """The chain's kernels first (in chain order), then the probes and lessons' kernels by name."""
    names = list(names)
    first = [n for n in (*CHAIN_KERNELS, "empty") if n in names]
    return first + sorted(n for n in names if n not in first)


def compile_kernel_set(arch: str | None = None, ptx: bool = False, use_cache: bool = True) -> CompileReport:
    """Compile every kernel source of the package (no GPU needed).

    ``arch``: a target like ``sm_90``; without it, device 0's own arch when a GPU answers, else the newest arch NVRTC
    knows. ``ptx``: PTX instead of cubin. ``use_cache``: take results from (and put them into) the on-disk cache.
    Wraps nvrtcCreateProgram / nvrtcCompileProgram / nvrtcGetCUBIN (nvrtcGetPTX) per source. A source that needs
    relocatable device code and the device runtime (core.link.needs_device_runtime: kernels/devlaunch.cu) is built
    as core.link builds it (NVRTC -rdc to LTO-IR, nvJitLink with libcudadevrt.a) for a cubin target; where that
    cannot be done (PTX asked, nvJitLink or libcudadevrt.a missing) it is compiled plainly, which leaves its
    device-launching kernels out, and its log says why.
    """
    note, cc = "", None
    if arch is None:
        try:
            cc = compute_capability_of(0)
            note = f"for device 0 ({'sm_%d%d' % cc})"
        except NoDeviceError:
            note = "no GPU found: compiling for the newest arch NVRTC knows (give an arch to choose: arch=, or --arch)"
    target, kind = resolve_arch(arch, cc, ptx)
    cache = default_cache() if use_cache else Cache(None)
    headers = read_headers()
    compiled = [_compile_member(read_source(name), name, target, kind, headers, cache)
                for name in kernel_order(kernel_names())]
    return CompileReport(target, kind, note, "%d.%d" % nvrtc_version(),
                         cache.describe() if cache.enabled else None, compiled)


def _compile_member(source: str, name: str, target: str, kind: str, headers: dict[str, str],
                    cache: Cache) -> Compiled:
    """One source of the set: plainly, or through core.link when it needs the device runtime."""
    if not link.needs_device_runtime(source):
        return compile_source(source, name, arch=target, kind=kind, headers=headers, cache=cache)
    why = "PTX was asked for" if kind != "cubin" else ""
    if not why:
        try:
            return link.build_relocatable(source, name, arch=target, headers=headers, cache=cache)
        except UnsupportedError as e:
            why = str(e)
    plain = compile_source(source, name, arch=target, kind=kind, headers=headers, cache=cache)
    plain.log = (f"[cugraphlab] compiled without -rdc: its device-launching kernels are left out ({why})\n"
                 + plain.log)
    return plain
