"""The one loader of a native library of prepared calls (``core.native_launch``'s launches; the exec_update study's
prepared updates): built once per cache folder, its ABI checked, its struct checked field by field against ctypes,
the Python C-API installed, the addresses of its entry points taken.

A library declares, beside its functions (``PREFIX`` is its own, e.g. ``cgl_native``)::

    int PREFIX_abi(void);                               /* the ABI number its Python side expects */
    size_t PREFIX_api_sizeof(void);                     /* sizeof(cgl_py_api) */
    size_t PREFIX_layout(size_t *out, size_t n);        /* sizeof the struct, then the offset of every field */
    void PREFIX_set_api(const cgl_py_api *);            /* receives the Python C-API table */

``PREFIX_layout`` lists the struct's size, then each field's offset in the order of the ctypes Structure's
``_fields_``, a nested Structure's fields flattened in place (an array is one field), then the size of each nested
Structure: ``ctypes_layout`` computes the same list from the ctypes side. A compiler that lays the struct out
otherwise (padding, a type of another size) is refused in one line instead of writing past a field at run time.
"""
from __future__ import annotations

import ctypes
from typing import Iterable

from .errors import CugraphlabError, UnsupportedError
from .native_builtin import PyApi, install_python_api, python_api

__all__ = ["ctypes_layout", "load_native_library"]

_VP = ctypes.c_void_p
_libraries: dict = {}


def ctypes_layout(struct: type[ctypes.Structure]) -> list[int]:
    """What the library's ``PREFIX_layout`` must answer for ``struct``, computed by ctypes."""
    out, nested = [ctypes.sizeof(struct)], []
    for field in struct._fields_:  # (name, type) or (name, type, bits)
        name, kind = field[0], field[1]
        base = getattr(struct, name).offset
        if isinstance(kind, type) and issubclass(kind, ctypes.Structure):
            out += [base + getattr(kind, f).offset for f, *_ in kind._fields_]
            nested.append(ctypes.sizeof(kind))
        else:
            out.append(base)
    return out + nested


def load_native_library(source: str, name: str, prefix: str, *, abi: int, struct: type[ctypes.Structure],
                        entry_points: Iterable[str], what: str, cache=None):
    """The C ``source`` built as library ``name`` (or loaded from the cache), checked and given the Python API, once
    per cache folder; ``lib.addresses`` maps each of ``entry_points`` to its address.

    UnsupportedError (one line) off CPython, without a C compiler, or where the compiler lays ``struct`` out
    otherwise than ctypes; NativeCompileError if the compiler refuses the source; CugraphlabError for a cached
    library of another ABI (clear the cache).
    """
    from .cache import default_cache
    from .native import load_c_library

    cache = default_cache() if cache is None else cache
    key = (name, str(getattr(cache, "folder", "")), bool(getattr(cache, "enabled", True)))
    lib = _libraries.get(key)
    if lib is not None:
        return lib
    python_api()  # UnsupportedError off CPython, before compiling anything
    lib = load_c_library(source, name, cache=cache)
    getattr(lib, f"{prefix}_abi").restype = ctypes.c_int
    getattr(lib, f"{prefix}_api_sizeof").restype = ctypes.c_size_t
    layout = getattr(lib, f"{prefix}_layout")
    layout.restype = ctypes.c_size_t
    layout.argtypes = (ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t)
    if getattr(lib, f"{prefix}_abi")() != abi:  # pragma: no cover - a stale library under the same key
        raise CugraphlabError(f"the {what} library has an unexpected ABI: clear the cache (CUGRAPHLAB_CACHE_DIR)")
    want = ctypes_layout(struct)
    got = (ctypes.c_size_t * len(want))()
    count = layout(got, len(want))
    api_size = getattr(lib, f"{prefix}_api_sizeof")()
    if count != len(want) or list(got) != want or api_size != ctypes.sizeof(PyApi):
        raise UnsupportedError(f"{what}: the C compiler lays the struct out as {list(got)[:count]} (Python API "
                               f"table {api_size} bytes), ctypes as {want} ({ctypes.sizeof(PyApi)} bytes)")
    install_python_api(lib, f"{prefix}_set_api")
    lib.addresses = {n: int(ctypes.cast(getattr(lib, n), _VP).value or 0) for n in entry_points}
    _libraries[key] = lib
    return lib
