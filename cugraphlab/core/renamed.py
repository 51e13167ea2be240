"""Keyword arguments renamed for one convention, the old names kept for one release.

Every public ``measure_*`` of the bench face takes ``device`` first, then ``size=`` (floats per buffer) and
``iters=`` (iterations, or launches, per sample). Functions that said ``n=``, ``iterations=`` or ``device_index=``
in the first 0.2.0 are wrapped by ``renamed_kwargs``: the old keyword still works, with a DeprecationWarning that
names the new one; giving both is one clear InvalidArgumentError.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, TypeVar

from .errors import InvalidArgumentError

__all__ = ["renamed_kwargs"]

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
