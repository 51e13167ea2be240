"""Which Python frames are the user's, for the stack watch (graphs.doctor.watch): not cugraphlab (unless
``treat_as_user_code``), not a stack (PyTorch, CuPy, cuda-python, ...), not the standard library, not an installed
package; the line an exception was raised at; and ``_quiet``, which keeps the watch's own errors from the script."""
from __future__ import annotations

import functools
import os
import sysconfig
from dataclasses import dataclass, field

from .stacks import _stack_of_name, calls_on_line

__all__ = ["is_user_file"]

@dataclass
class _Paths:
    stdlib: tuple = field(default_factory=lambda: tuple(
        os.path.join(p, "") for p in {sysconfig.get_paths().get("stdlib", ""), sysconfig.get_paths().get(
            "platstdlib", "")} if p))


_PATHS = _Paths()
_CYTHON = (".pyx", ".pxd", ".pxi")
_COMPILED_STACKS = {"cupy", "cupyx", "cupy_backends", "cuda", "torch", "numba", "numba_cuda", "triton"}


@functools.lru_cache(maxsize=8192)
def is_user_file(filename: str) -> bool:
    """A frame of the user's code: not cugraphlab (unless treat_as_user_code), not a stack (torch, CuPy, ...),
    not the standard library, not any installed package."""
    from .calls import _USER_CODE
    from .cupti import _skipped

    if not filename or filename.startswith("<"):
        return False
    if filename.endswith(_CYTHON) or (not os.path.isabs(filename) and filename.replace("\\", "/").split("/", 1)[0]
                                      in _COMPILED_STACKS):
        return False  # a compiled stack's frame: CuPy's and cuda.core's Cython name theirs "cupy/_core/core.pyx"
    if filename in _USER_CODE or os.path.realpath(filename) in _USER_CODE:
        return True
    if _skipped(filename):
        return False
    if filename.startswith(_PATHS.stdlib) or "site-packages" in filename or "dist-packages" in filename:
        return False
    return True


def _user_site(frame) -> tuple[str, int, str]:
    f = frame
    while f is not None and not is_user_file(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return "", 0, ""
    from .calls import _short_path

    return _short_path(f.f_code.co_filename), f.f_lineno, f.f_code.co_name


def _tb_site(tb) -> tuple[str, int, str]:
    """The deepest frame of a traceback in the user's files."""
    from .calls import _short_path

    site = ("", 0, "")
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if is_user_file(name):
            site = (_short_path(name), tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return site


def _stack_of_exception(exc: BaseException, source: str) -> str:
    mod = type(exc).__module__ or ""
    for prefix, stack in (("torch", "torch"), ("cupy", "cupy"), ("cupy_backends", "cupy"), ("cuda.core", "cuda.core"),
                          ("numba", "numba"), ("triton", "triton"), ("cugraphlab", "cugraphlab")):
        if mod.startswith(prefix):
            return stack
    for call in calls_on_line(source):
        s = _stack_of_name(call)
        if s:
            return s
    return ""


def _text(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    first = next((m for m in msg if m.strip()), "")
    return f"{type(exc).__name__}: {first}"[:300]


def _quiet(default=None):
    """The watch must never break the program it watches: an error of its own is dropped (the event is lost)."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - by design: see the docstring
                return default(args[0]) if callable(default) else default
        return run
    return wrap
