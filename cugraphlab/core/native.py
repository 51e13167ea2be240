"""C compiled at run time: a small source built into a shared library with the system's C compiler, cached on disk.

Some figures need code with no Python in it: the native floor of a launch (``bench.native``: ``cuLaunchKernel`` in a
C loop), or a host-node callback that must not take the GIL. This module builds such a source the way NVRTC builds a
kernel, and caches it the same way:

    lib = load_c_library(SOURCE, "launch_loop")    # cc -O2 -shared -fPIC ... -o <cache>/<name>-<key>.so; dlopen
    lib.cgl_launch_loop.argtypes = (...)           # then call it through ctypes

The compiler is ``$CC`` (which may carry arguments, e.g. ``"gcc -m64"``), else the first of ``cc``, ``gcc``,
``clang`` on PATH; none: ``UnsupportedError`` with one line saying so. The sources this package compiles need no CUDA
header and no ``-lcuda``: they declare the few driver types they use themselves (``typedef int CUresult; typedef
void* CUfunction; ...``) and receive the driver's entry points as function pointers from Python (the addresses of
``libcuda.so.1``'s symbols, taken with ctypes), so they build on a machine without a driver.

Cache: the folder of the NVRTC cache (``core.cache.default_cache``) under ``native/``; the key is the sha256 of the
source, the compiler's resolved path, its ``--version`` text, the flags and the machine. Each entry is the library
``<name>-<key>.so`` plus ``<name>-<key>.json`` holding the library's own sha256; an entry whose library fails its
hash reads as absent and is built again. Both files are written to a temporary name and renamed into place (the
library first), so a reader never sees half an entry. With the cache off (``CUGRAPHLAB_CACHE_DIR=off``) the library
is built into a temporary folder that is removed once it is loaded.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import platform
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from .cache import Cache, default_cache, replace_atomically
from .errors import CugraphlabError, InvalidArgumentError, UnsupportedError

__all__ = ["c_compiler", "compiler_version", "load_c_library", "NativeLibrary", "NativeCompileError",
           "DEFAULT_FLAGS", "COMPILER_CANDIDATES"]

COMPILER_CANDIDATES = ("cc", "gcc", "clang")
DEFAULT_FLAGS = ("-O2", "-std=c99", "-fPIC", "-shared", "-Wall")
_COMPILE_TIMEOUT_S = 120


class NativeCompileError(CugraphlabError):
    """The C compiler refused a source; carries the compiler's command line and its output."""

    def __init__(self, name: str, command: list[str], output: str):
        self.name, self.command, self.output = name, list(command), output
        super().__init__(f"the C compiler could not build {name}: {shlex.join(command)}\n{output.strip()}")


class NativeLibrary(ctypes.CDLL):
    """A ``ctypes.CDLL`` that also says where it came from: ``path``, ``key``, ``compiler``, ``cache_hit``; a library
    of prepared calls also maps its entry points to their addresses (``addresses``, ``core.native_library``)."""

    def __init__(self, path: str, *, key: str, compiler: str, cache_hit: bool):
        super().__init__(path)
        self.path, self.key, self.compiler, self.cache_hit = path, key, compiler, cache_hit
        self.addresses: dict[str, int] = {}


def _compiler_command() -> list[str] | None:
    """The compiler as an argument list (``$CC`` split like a shell would), resolved on PATH; None if none."""
    env = os.environ.get("CC", "").strip()
    if env:
        parts = shlex.split(env)
        found = shutil.which(parts[0])
        return [found, *parts[1:]] if found else None
    for name in COMPILER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return [found]
    return None


def c_compiler() -> str | None:
    """The C compiler this module would use (``$CC`` or the first of cc, gcc, clang on PATH), or None."""
    cmd = _compiler_command()
    return shlex.join(cmd) if cmd else None


@functools.lru_cache(maxsize=8)
def compiler_version(compiler: str) -> str:
    """The text of ``<compiler> --version`` (part of the cache key: another compiler builds another library)."""
    try:
        r = subprocess.run([*shlex.split(compiler), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({type(e).__name__})"
    return (r.stdout or r.stderr).strip()


def _key(source: str, compiler: str, version: str, flags: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for part in (source, compiler, version, "\0".join(flags), platform.machine(), platform.system()):
        h.update(part.encode())
        h.update(b"\0\1")
    return h.hexdigest()


def _safe_name(name: str) -> str:
    if not name or not all(c.isalnum() or c in "_-" for c in name):
        raise InvalidArgumentError(f"a native library name must be letters, digits, '_' or '-', got {name!r}")
    return name


def _build(source: str, name: str, compiler: list[str], flags: tuple[str, ...], folder: Path) -> Path:
    """Compile ``source`` into ``folder/<name>.so``; NativeCompileError with the compiler's output on failure."""
    src = folder / f"{name}.c"
    out = folder / f"{name}.so"
    src.write_text(source)
    command = [*compiler, *flags, str(src), "-o", str(out)]
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as e:
        raise NativeCompileError(name, command, f"{type(e).__name__}: {e}") from e
    if r.returncode != 0 or not out.is_file():
        raise NativeCompileError(name, command, (r.stderr or "") + (r.stdout or ""))
    return out


def _cached(folder: Path, stem: str) -> Path | None:
    """The library of a cache entry whose sha256 matches its record, or None."""
    lib, meta = folder / f"{stem}.so", folder / f"{stem}.json"
    try:
        record = json.loads(meta.read_text())
        blob = lib.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("sha256") != hashlib.sha256(blob).hexdigest():
        return None
    return lib


def _store(folder: Path, stem: str, built: Path, meta: dict) -> Path | None:
    """Put a built library into the cache (library first, then its record); None if the folder is not writable."""
    blob = built.read_bytes()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        replace_atomically(folder / f"{stem}.so", blob, 0o755)
        record = {**meta, "sha256": hashlib.sha256(blob).hexdigest()}
        replace_atomically(folder / f"{stem}.json", json.dumps(record, sort_keys=True).encode(), 0o755)
    except OSError:
        return None
    return folder / f"{stem}.so"


def load_c_library(source: str, name: str, *, flags: tuple[str, ...] = DEFAULT_FLAGS,
                   cache: Cache | None = None) -> NativeLibrary:
    """``source`` (C) built into a shared library with the system C compiler (or found in the cache) and loaded.

    Parameters: ``source`` the C text; ``name`` a short name (file names, messages); ``flags`` the compiler flags
    (``-shared -fPIC`` among them); ``cache`` the cache whose folder holds ``native/`` (default: the NVRTC cache's).
    Returns a ``NativeLibrary`` (a ``ctypes.CDLL``; ``cache_hit`` says whether it was built now). Raises
    ``UnsupportedError`` when no C compiler exists, ``NativeCompileError`` when it refuses the source.
    Not a CUDA call: the library talks to the driver only through function pointers it is given.
    """
    if not isinstance(source, str) or not source.strip():
        raise InvalidArgumentError("load_c_library needs C source text")
    name = _safe_name(name)
    compiler = _compiler_command()
    if compiler is None:
        cc = os.environ.get("CC", "").strip()
        where = f"$CC={cc!r} is not on PATH" if cc else f"none of {', '.join(COMPILER_CANDIDATES)} is on PATH"
        raise UnsupportedError(f"native code ({name}): no C compiler ({where}); install gcc or clang, or set CC")
    flags = tuple(flags)
    shown = shlex.join(compiler)
    version = compiler_version(shown)
    key = _key(source, shown, version, flags)
    stem = f"{name}-{key[:32]}"
    cache = default_cache() if cache is None else cache
    folder = Path(cache.folder) / "native" if cache.enabled and cache.folder is not None else None
    if folder is not None:
        hit = _cached(folder, stem)
        if hit is not None:
            return NativeLibrary(str(hit), key=key, compiler=shown, cache_hit=True)
    with tempfile.TemporaryDirectory(prefix="cgl-native-") as tmp:
        built = _build(source, name, compiler, flags, Path(tmp))
        meta = {"name": name, "compiler": shown, "compiler_version": version.splitlines()[0] if version else "",
                "flags": list(flags)}
        stored = _store(folder, stem, built, meta) if folder is not None else None
        if stored is not None:
            return NativeLibrary(str(stored), key=key, compiler=shown, cache_hit=False)
        # No cache (off or not writable): load from the temporary folder; the mapping outlives the file.
        return NativeLibrary(str(built), key=key, compiler=shown, cache_hit=False)
