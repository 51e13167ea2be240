"""Run-time compilation with NVRTC and an on-disk cache of the results.

    compiled = compile_source(source, "saxpy")   # cubin for the current device's sm_XY
    module = device.load_module(compiled)         # cuModuleLoadData
    kernel = module.kernel("saxpy")               # cuModuleGetFunction

A device gets cubin for its own ``sm_XY``; when NVRTC does not know that arch (a device newer than NVRTC), PTX for
the newest arch NVRTC knows, which the driver compiles at load time. NVRTC needs no GPU, so all of this works on a
machine without one: there, with no CUDA context current, ``compile_source`` compiles for the newest arch NVRTC
knows and says so (a warning, and ``Compiled.arch_note``); pass ``arch=`` to choose.

The options every compile gets (``BASE_OPTIONS``, changeable with ``base_options=``):
  ``--std=c++17``     the language the package's kernels are written in;
  ``--fmad=false``    never contract ``a * b + c`` into one fused multiply-add. An FMA rounds once where NumPy rounds
                      twice (after the multiply, after the add), so a kernel compiled with contraction can differ from
                      ``a * x + y`` in NumPy float32 by one unit in the last place: bit-exact checks against NumPy
                      need it off. Pass ``base_options=("--std=c++17",)`` for the compiler's default (contraction on,
                      what nvcc does), at the price of those checks;
and, from the call: ``--gpu-architecture=<arch>``, plus ``--ptxas-options=-v`` for cubin (the register report
that ``Compiled.registers`` is read from). ``options=`` come after the base options.

NVRTC API: nvrtcCreateProgram, nvrtcCompileProgram, nvrtcGetCUBIN / nvrtcGetPTX / nvrtcGetLTOIR,
nvrtcGetProgramLog (CUDA NVRTC documentation, "NVRTC API").

Cache entries are keyed by the sha256 of source, headers, options, arch, output kind, NVRTC version and package
version. Each entry stores a header line (JSON with the payload's own sha256) and the payload; an entry whose
payload fails its hash is compiled again. Writes go to a temporary file renamed over the target, so a reader never
sees half an entry. The cache folder is ``$CUGRAPHLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/cugraphlab``, else
``~/.cache/cugraphlab``; ``CUGRAPHLAB_CACHE_DIR=off`` disables it.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import time
import warnings
from dataclasses import dataclass, field

from .._version import __version__
from ._calls import nv, nvrtc_fn
from .cache import Cache, default_cache
from .current import current_compute_capability
from .errors import CompileError, InvalidArgumentError, UnsupportedError, check_nvrtc

__all__ = [
    "Compiled",
    "nvrtc_version",
    "supported_archs",
    "resolve_arch",
    "compile_source",
    "default_arch",
    "BASE_OPTIONS",
]

#: The options every compile starts with (see the module docstring): C++17, and no FMA contraction, so that plain
#: ``a * b + c`` rounds twice like NumPy's float32 and results compare bit for bit (the package's kernels also use
#: ``_rn`` intrinsics; this covers any plain arithmetic a user writes). ``compile_source(base_options=...)`` changes it.
BASE_OPTIONS = ("--std=c++17", "--fmad=false")


@dataclass(repr=False)
class Compiled:
    """One compiled program: the image the driver loads and what the compile said about it.

    ``arch_note`` says how the arch was chosen when the caller did not name one ("" otherwise). The repr is short
    (name, arch, kind, size, the image's sha256 prefix); the image itself is ``image``.
    """

    name: str
    kind: str  # "cubin", "ptx" or "ltoir"
    arch: str  # e.g. "sm_90" or "compute_120"
    image: bytes
    log: str = ""
    registers: dict[str, int] = field(default_factory=dict)
    cache_hit: bool = False
    seconds: float = 0.0
    key: str = ""
    arch_note: str = ""

    @property
    def sha256(self) -> str:
        """The image's sha256 (hex)."""
        return hashlib.sha256(self.image).hexdigest()

    def __repr__(self) -> str:
        hit = " cached" if self.cache_hit else ""
        return (f"<Compiled {self.name} {self.arch} {self.kind} {len(self.image):,} bytes "
                f"sha256:{self.sha256[:12]}{hit}>")


def nvrtc_version() -> tuple[int, int]:
    """The NVRTC library's (major, minor) (nvrtcVersion).

    Returns
    -------
    tuple of int
        (major, minor), e.g. (13, 0).

    Raises
    ------
    MissingPackageError
        cuda-bindings is not installed.
    CompileError
        nvrtcVersion failed (NVRTC's library could not answer).
    """
    return nv("nvrtcVersion")


def supported_archs() -> list[int]:
    """The compute capabilities NVRTC can compile for, as ints (75, 80, ..., 120)."""
    return sorted(int(a) for a in nv("nvrtcGetSupportedArchs"))


_ARCH_RE = re.compile(r"^(?:(sm|compute)_)?(\d{2,3})([af]?)$")


_CU12_HINT = "pip install 'cugraphlab[cu12]' (NVRTC 12.9 compiles for sm_50 to sm_121)"


def _too_old_for_nvrtc(number: int, known: list[int]) -> bool:
    """An arch that NVRTC 12.9 compiles for (sm_50+) but this NVRTC 13 no longer does (before sm_75)."""
    return bool(known) and 50 <= number < known[0] and nvrtc_version()[0] >= 13


def resolve_arch(requested: str | None = None, compute_capability: tuple[int, int] | None = None,
                 ptx: bool = False) -> tuple[str, str]:
    """Pick (arch, kind) for a compile.

    ``requested`` is an arch the user named (``sm_90``, ``compute_90``, ``90``); otherwise the device's compute
    capability decides; with neither, the newest arch NVRTC knows. ``ptx`` forces PTX output.

    Parameters
    ----------
    requested : str, optional
        The arch asked for.
    compute_capability : tuple of int, optional
        (major, minor) of the device to compile for.
    ptx : bool, optional
        PTX (compute_XY) instead of a cubin (sm_XY).

    Returns
    -------
    tuple of str
        (arch, kind): e.g. ("sm_90", "cubin"), or ("compute_120", "ptx") for a device newer than NVRTC.

    Raises
    ------
    InvalidArgumentError
        An arch that is no arch, or one this NVRTC does not know (naming the cu12 extra for pre-Turing GPUs).
    UnsupportedError
        A device this NVRTC cannot compile for.
    """
    known = supported_archs()
    nvrtc = ".".join(map(str, nvrtc_version()))
    if requested is not None:
        m = _ARCH_RE.match(str(requested).strip())
        if not m:
            raise InvalidArgumentError(f"arch must look like sm_90 or compute_90, got {requested!r}")
        number, suffix = int(m.group(2)), m.group(3)
        if number not in known:
            if _too_old_for_nvrtc(number, known):
                raise InvalidArgumentError(f"{requested} needs cu12: NVRTC {nvrtc} (CUDA 13) compiles for sm_75 "
                                           f"(Turing) and newer only; {_CU12_HINT}")
            raise InvalidArgumentError(f"NVRTC {nvrtc} does not know arch {requested!r}; it knows: "
                                       + ", ".join(f"sm_{a}" for a in known))
        as_ptx = ptx or m.group(1) == "compute"
        return (f"compute_{number}{suffix}" if as_ptx else f"sm_{number}{suffix}"), ("ptx" if as_ptx else "cubin")
    if compute_capability is None:
        number = known[-1]
    else:
        number = compute_capability[0] * 10 + compute_capability[1]
        if number not in known:
            older = [a for a in known if a <= number]
            if not older:  # a GPU older than NVRTC's range
                if _too_old_for_nvrtc(number, known):
                    raise UnsupportedError(f"this GPU (sm_{number}) needs cu12: NVRTC {nvrtc} (CUDA 13) compiles "
                                           f"for sm_75 (Turing) and newer only; {_CU12_HINT}")
                raise UnsupportedError(f"NVRTC {nvrtc} cannot compile for sm_{number}; it knows: "
                                       + ", ".join(f"sm_{a}" for a in known))
            # A device newer than NVRTC: PTX for the newest arch NVRTC knows, JIT-compiled by the driver.
            return f"compute_{older[-1]}", "ptx"
    return (f"compute_{number}", "ptx") if ptx else (f"sm_{number}", "cubin")


def _cache_key(source: str, headers: dict[str, str], options: tuple[str, ...], arch: str, kind: str) -> str:
    h = hashlib.sha256()
    for part in (source, json.dumps(sorted(headers.items())), json.dumps(list(options)), arch, kind,
                 ".".join(map(str, nvrtc_version())), __version__):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


_REG_RE = re.compile(r"Compiling entry function '([^']+)'.*?Used (\d+) registers", re.S)


def parse_registers(log: str) -> dict[str, int]:
    """Registers per entry function from a ptxas -v log (empty when the log has no ptxas report)."""
    return {m.group(1): int(m.group(2)) for m in _REG_RE.finditer(log)}


def default_arch() -> tuple[str, str, str]:
    """(arch, kind, note) for a compile that names no arch: the arch of the device whose context is current on this
    thread (cuCtxGetCurrent, cuCtxGetDevice, cuDeviceGetAttribute), by ``resolve_arch``'s rules; with no context
    current (no Device made yet, or no GPU at all), the newest arch NVRTC knows, and a note that says so."""
    cc = current_compute_capability()
    if cc is not None:
        arch, kind = resolve_arch(None, cc)
        newer = "" if kind == "cubin" else f" (sm_{cc[0]}{cc[1]} is newer than NVRTC: PTX, compiled by the driver)"
        return arch, kind, f"{arch} {kind}: the current device's arch{newer}"
    arch, kind = resolve_arch(None, None)
    nvrtc = ".".join(map(str, nvrtc_version()))
    return arch, kind, (f"{arch} {kind}: no CUDA context is current (make the Device first, or pass arch=), so "
                        f"the newest arch NVRTC {nvrtc} knows; a GPU of another arch cannot load it")


def compile_source(source: str, name: str, *, arch: str | None = None, kind: str | None = None,
                   headers: dict[str, str] | None = None, options: tuple[str, ...] = (), cache: Cache | None = None,
                   base_options: tuple[str, ...] = BASE_OPTIONS) -> Compiled:
    """Compile CUDA C++ ``source`` with NVRTC; cached on disk (see the module docstring for the cache).

    Always added to the options: ``--gpu-architecture=<arch>``, and ``--ptxas-options=-v`` for cubin (registers
    per kernel). NVRTC API: nvrtcCreateProgram, nvrtcCompileProgram, nvrtcGetCUBIN / nvrtcGetPTX /
    nvrtcGetLTOIR, nvrtcGetProgramLog, nvrtcDestroyProgram.

    Parameters
    ----------
    source : str
        The program text; kernels meant to be looked up by name are ``extern "C" __global__``.
    name : str
        The program's name (``<name>.cu`` in NVRTC's messages, and the Compiled's name).
    arch : str, optional
        ``"sm_90"`` (cubin), ``"compute_90"`` (PTX) or ``"90"``; default: the current device's arch
        (``default_arch``), or without a current context the newest arch NVRTC knows, with a warning.
    kind : str, optional
        "cubin", "ptx", or "ltoir" (NVVM IR for link-time optimisation; pass ``-rdc=true -dlto`` in ``options``:
        core.link does, then links it with nvJitLink); default: what ``arch`` implies (cubin for sm_XY, ptx for
        compute_XY).
    headers : dict, optional
        Name -> text of headers the source includes (``#include "name"``).
    options : tuple of str, optional
        Further NVRTC options, after ``base_options`` (e.g. ``("-DN=4", "-I/path")``).
    cache : Cache, optional
        A core.cache.Cache (default: ``default_cache()``; ``Cache(None)`` compiles every time).
    base_options : tuple of str, optional
        The options every compile starts with, ``BASE_OPTIONS`` = ``("--std=c++17", "--fmad=false")``: FMA
        contraction off so that results match NumPy float32 bit for bit; pass another tuple (or ``()``) to change
        them.

    Returns
    -------
    Compiled
        ``image`` for ``Device.load_module``, ``log``, ``registers``, ``cache_hit``.

    Raises
    ------
    CompileError
        NVRTC refused the source (the log, the options, the source with line numbers).
    InvalidArgumentError
        A bad arch, kind or ``base_options``.
    """
    note = ""
    if arch is None:
        arch, implied, note = default_arch()
        if "no CUDA context" in note:
            warnings.warn(f"compile_source({name!r}): {note}", UserWarning, stacklevel=2)
        kind = kind or implied
    elif kind is None:
        arch, kind = resolve_arch(arch)
    if kind not in ("cubin", "ptx", "ltoir"):
        raise InvalidArgumentError(f"kind must be 'cubin', 'ptx' or 'ltoir', got {kind!r}")
    if isinstance(base_options, str):
        raise InvalidArgumentError("base_options must be a tuple of option strings, not one string")
    headers = dict(headers or {})
    opts = tuple(base_options) + tuple(options) + _toolkit_includes(source, headers, options) + (
        f"--gpu-architecture={arch}",)
    if kind == "cubin":
        opts += ("--ptxas-options=-v",)
    cache = default_cache() if cache is None else cache
    key = _cache_key(source, headers, opts, arch, kind)
    t0 = time.perf_counter()
    hit = cache.get(key)
    if hit is not None:
        payload, meta = hit
        return Compiled(name, kind, arch, payload, meta.get("log", ""), dict(meta.get("registers", {})),
                        cache_hit=True, seconds=time.perf_counter() - t0, key=key, arch_note=note)
    image, log = _nvrtc_compile(source, name, headers, opts, kind)
    compiled = Compiled(name, kind, arch, image, log, parse_registers(log), False, time.perf_counter() - t0, key,
                        note)
    cache.put(key, image, {"name": name, "kind": kind, "arch": arch, "log": log, "registers": compiled.registers})
    return compiled


_TOOLKIT_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([A-Za-z0-9_]+\.h)[>"]', re.M)


def _toolkit_includes(source: str, headers: dict, options) -> tuple[str, ...]:
    """``-I<folder>`` for a toolkit header the source includes (``#include <cuda_fp16.h>``, ...) that NVRTC does not
    bring itself, found beside the NVRTC in use (``core.cuda_headers.toolkit_header_dir``: the CUDA toolkit, or a
    pip install's nvidia-cuda-runtime wheel); nothing when the caller passes an ``-I`` or the header's text, or
    when no folder has it (NVRTC's error then names the header)."""
    from .cuda_headers import TOOLKIT_HEADERS

    wanted = [h for h in _TOOLKIT_INCLUDE.findall(source) if h in TOOLKIT_HEADERS and h not in headers]
    if not wanted or any(str(o).startswith(("-I", "--include-path")) for o in options):
        return ()
    folder = _header_dir(wanted[0])
    return (f"-I{folder}",) if folder else ()


@functools.lru_cache(maxsize=8)
def _header_dir(header: str) -> str | None:
    from .cuda_headers import toolkit_header_dir

    return toolkit_header_dir(header)


def _nvrtc_compile(source: str, name: str, headers: dict[str, str], opts: tuple[str, ...],
                   kind: str) -> tuple[bytes, str]:
    names = list(headers)
    prog = nv("nvrtcCreateProgram", source.encode(), f"{name}.cu".encode(), len(names),
              [headers[n].encode() for n in names], [n.encode() for n in names])
    try:
        result = nvrtc_fn("nvrtcCompileProgram")(prog, len(opts), [o.encode() for o in opts])
        log = _program_log(prog)
        status = result[0]
        if status != 0:
            raise CompileError(name, log or getattr(status, "name", str(status)), source, opts,
                               getattr(status, "name", str(status)))
        if kind == "cubin":
            size = nv("nvrtcGetCUBINSize", prog)
            buf = b" " * size
            check_nvrtc(nvrtc_fn("nvrtcGetCUBIN")(prog, buf), "nvrtcGetCUBIN")
        elif kind == "ltoir":
            size = nv("nvrtcGetLTOIRSize", prog)
            buf = b" " * size
            check_nvrtc(nvrtc_fn("nvrtcGetLTOIR")(prog, buf), "nvrtcGetLTOIR")
        else:
            size = nv("nvrtcGetPTXSize", prog)
            buf = b" " * size
            check_nvrtc(nvrtc_fn("nvrtcGetPTX")(prog, buf), "nvrtcGetPTX")
        return bytes(buf), log
    finally:
        nv("nvrtcDestroyProgram", prog)


def _program_log(prog) -> str:
    size = nv("nvrtcGetProgramLogSize", prog)
    if size <= 1:
        return ""
    buf = b" " * size
    check_nvrtc(nvrtc_fn("nvrtcGetProgramLog")(prog, buf), "nvrtcGetProgramLog")
    return buf.rstrip(b"\0").decode(errors="replace")
