"""Keyword arguments and functions renamed for one convention, the old names kept for one release.

Every public ``measure_*`` of the bench face takes ``device`` first, then ``size=`` (floats per buffer) and
``iters=`` (iterations, or launches, per sample). Functions that said ``n=``, ``iterations=`` or ``device_index=``
in the first 0.2.0 are wrapped by ``renamed_kwargs``: the old keyword still works, with a DeprecationWarning that
names the new one; giving both is one clear InvalidArgumentError. Functions renamed for one verb (``run_sweep`` is
``measure_sweep``) keep their old name through ``renamed_function``.
"""
from __future__ import annotations

import functools
import inspect
import sys
import warnings
from typing import Any, Callable, TypeVar

from .errors import InvalidArgumentError

__all__ = ["renamed_kwargs", "renamed_function"]

F = TypeVar("F", bound=Callable[..., Any])


def renamed_kwargs(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: ``@renamed_kwargs(n="size")`` lets callers still pass ``n=`` (warned) to a function whose
    parameter is now ``size``.

    Parameters
    ----------
    **old_to_new : str
        Old keyword -> the parameter's name now.

    Returns
    -------
    callable
        A decorator; the wrapped function keeps its name, docstring and signature (``functools.wraps``) and lists
        the renames in ``__renamed__``.

    Raises
    ------
    InvalidArgumentError
        (from the wrapped function) when a call gives both the old and the new keyword.
    """
    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def renamed(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise InvalidArgumentError(f"{fn.__name__}() got {old}= and {new}=: {old}= is the old name of "
                                               f"{new}=; give {new}= only")
                warnings.warn(f"{fn.__name__}({old}=...) is now {fn.__name__}({new}=...); {old}= will be removed",
                              DeprecationWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        renamed.__renamed__ = dict(old_to_new)  # type: ignore[attr-defined]
        return renamed  # type: ignore[return-value]

    return wrap


def renamed_function(old: str, new: Callable[..., Any]) -> Callable[..., Any]:
    """The old name ``old`` of ``new``: it warns (DeprecationWarning: "old is now new (the same arguments); old will
    be removed"), then calls ``new`` with the same arguments and returns what it returns.

    Parameters
    ----------
    old : str
        The name the function had.
    new : callable
        The function now; the alias looks it up in its module at each call (what replaces it there is called).

    Returns
    -------
    callable
        The alias, named ``old``, with ``new``'s signature and docstring under one line saying what it is.

    Raises
    ------
    InvalidArgumentError
        Never itself; the call raises what ``new`` raises.
    """
    module, name = sys.modules[new.__module__], new.__name__

    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{old} is now {name} (the same arguments); {old} will be removed", DeprecationWarning,
                      stacklevel=2)
        return getattr(module, name)(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = (f"The old name of ``{name}``: the same call, with a DeprecationWarning.\n\n"
                     + inspect.cleandoc(new.__doc__ or ""))
    return alias
