"""What the graph floor's functions accept: a ``Graph`` (or anything holding a driver handle in ``.handle``) or the
driver's own ``CUgraph``; ``as_handle`` gives the handle the binding wants. One place, typed, for every module."""
from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

__all__ = ["HasHandle", "GraphLike", "as_handle"]


@runtime_checkable
class HasHandle(Protocol):
    """An object of this package that owns a driver handle (Graph, GraphExec, Stream, ...)."""

    handle: Any


#: A cugraphlab Graph, or a raw ``cuda.bindings.driver.CUgraph`` (as a capture or a foreign library returns it).
GraphLike = Union[HasHandle, Any]


def as_handle(obj: GraphLike) -> Any:
    """``obj.handle`` for this package's objects, ``obj`` itself for a driver handle."""
    return obj.handle if isinstance(obj, HasHandle) else obj
