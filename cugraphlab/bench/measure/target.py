"""Targets: a function named as ``path/to/file.py:function`` or ``package.module:function``, its setup, its check.

Worker processes cannot be handed a function object (a ``spawn`` process starts empty), so ``processes=N``, the
command line and the pytest plugin name the work by where it lives; each process imports it itself.

The conventions, one for every user function:

- ``setup(stream)`` (or ``setup()``) runs once, before anything is timed, and returns the state the others get:
  ``None`` (nothing), a tuple (extra positional arguments), a dict (keyword arguments) or any other value (one
  argument).
- the work is called ``fn(stream, *state)`` (or ``fn(stream, **state)``);
- ``prepare(*state)`` runs before each way's checked call (fresh inputs, poisoned outputs), ``check(*state)``
  after it: the check passes when it returns None or True, or an object whose ``ok`` is true or whose
  ``mismatches`` is 0 (``cugraphlab.compare_bits`` returns one); it fails when it returns False (or such an object
  saying otherwise) or raises AssertionError, whose message is kept.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable

from ...core.errors import CugraphlabError, InvalidArgumentError
from .way import WorkRaised, call_user, user_error

__all__ = ["split_target", "load_target", "target_of", "state_args", "call_setup", "run_check", "takes_argument"]

_MODULES: dict[str, Any] = {}


def split_target(text: str) -> tuple[str, str]:
    """``"file.py:fn"`` -> ``("file.py", "fn")``; InvalidArgumentError when there is no ``:function``."""
    source, sep, name = str(text).rpartition(":")
    if not sep or not source or not name.isidentifier():
        raise InvalidArgumentError(f"a target is path/to/file.py:function or package.module:function, got {text!r}")
    return source, name


def _is_path(source: str) -> bool:
    return source.endswith(".py") or os.sep in source or "/" in source


def _load_file(path: str):
    p = Path(path)
    if not p.is_file():
        raise InvalidArgumentError(f"{path}: no such file" if not p.exists() else f"{path} is not a file")
    key = str(p.resolve())
    if key in _MODULES:
        return _MODULES[key]
    name = "cgl_target_" + "".join(c if c.isalnum() else "_" for c in p.stem)
    spec = importlib.util.spec_from_file_location(name, key)
    if spec is None or spec.loader is None:
        raise InvalidArgumentError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(p.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as when the file runs as a script: its neighbours import
    sys.modules[name] = module
    try:
        call_user(f"importing {path}", spec.loader.exec_module, module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _MODULES[key] = module
    return module


def _load_module(source: str):
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as e:
        if e.name and source.startswith(e.name):
            raise InvalidArgumentError(f"no module named {source!r} (for a file, write path/to/file.py)") from None
        raise WorkRaised(f"importing {source} raised ModuleNotFoundError: {e}") from e
    except Exception as e:
        raise WorkRaised(f"importing {source} raised {type(e).__name__}: {e}") from e


def load_target(text: str, what: str = "target") -> Callable:
    """The callable ``text`` names (``split_target``); one InvalidArgumentError line when the file or module is
    missing, when it has no such name, or when the name is not callable."""
    source, name = split_target(text)
    module = _load_file(source) if _is_path(source) else _load_module(source)
    if not hasattr(module, name):
        have = sorted(n for n, v in vars(module).items() if inspect.isfunction(v) and not n.startswith("_")
                      and getattr(v, "__module__", None) == module.__name__)
        listed = f" (its functions: {', '.join(have)})" if have else ""
        raise InvalidArgumentError(f"{source} has no {what} {name!r}{listed}")
    fn = getattr(module, name)
    if not callable(fn):
        raise InvalidArgumentError(f"{source}:{name} is a {type(fn).__name__}, not a function")
    return fn


def target_of(fn: Callable) -> str:
    """``"path/to/file.py:function"`` for a top-level function of a file (what a worker process imports);
    InvalidArgumentError for a lambda, a nested function or a method."""
    name = getattr(fn, "__qualname__", "")
    if not name or "<" in name or "." in name:
        raise InvalidArgumentError(f"processes=N imports the work by name in each process: give a top-level "
                                   f"function (or a 'path.py:function' string), got {fn!r}")
    try:
        path = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except TypeError:
        path = None
    if not path:
        raise InvalidArgumentError(f"cannot tell which file defines {fn!r}: give a 'path.py:function' string")
    return f"{path}:{name}"


def takes_argument(fn: Callable) -> bool:
    """Whether ``fn`` accepts at least one positional argument."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)


def state_args(state) -> tuple[tuple, dict]:
    """What setup returned, as (extra positional arguments, keyword arguments)."""
    if state is None:
        return (), {}
    if isinstance(state, tuple):
        return state, {}
    if isinstance(state, dict):
        return (), dict(state)
    return (state,), {}


def call_setup(setup: Callable | None, view, name: str = "setup") -> tuple[tuple, dict]:
    """Run ``setup(view)`` (or ``setup()``) once; its state as (args, kwargs)."""
    if setup is None:
        return (), {}
    state = call_user(name, setup, view) if takes_argument(setup) else call_user(name, setup)
    return state_args(state)


def run_check(check: Callable, args: tuple, kwargs: dict, name: str = "check") -> str:
    """``"passed"`` or ``"FAILED: why"`` for one call of the user's check (conventions in the module docstring)."""
    try:
        got = check(*args, **kwargs)
    except AssertionError as e:
        return f"FAILED: {e}" if str(e) else "FAILED: AssertionError"
    except CugraphlabError:
        raise
    except Exception as e:
        raise user_error(name, e) from e
    if got is None or got is True:
        return "passed"
    if got is False:
        return "FAILED: the check returned False"
    ok = getattr(got, "ok", None)
    if ok is None and hasattr(got, "mismatches"):
        ok = got.mismatches == 0
    if ok is None:
        return "passed" if got else f"FAILED: the check returned {got!r}"
    return "passed" if ok else f"FAILED: {got}"
