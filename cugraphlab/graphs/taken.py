"""Graphs the driver destroys by itself: what an invalidated capture into an existing graph leaves behind.

Seen on the H200 (``benchmarks/conditional_invalidation_probe.py``, raw cuda.bindings, each teardown in its own
process; log in benchmarks/results/2026-12-04_H200_round9/): when a capture begun with
cuStreamBeginCaptureToGraph is invalidated (a cuStreamSynchronize inside it, say), cuStreamEndCapture answers
CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and destroys the graph captured into.

- A plain graph: its handle is gone; cuGraphDestroy of it answers CUDA_ERROR_INVALID_VALUE.
- A conditional node's body: the body is gone (cuGraphGetNodes answers CUDA_ERROR_INVALID_VALUE), the parent lists
  no node any more, and cuGraphDestroy of the parent, or cuGraphDestroyNode of the conditional node, ends the
  process with a segmentation fault. Never destroying the parent is the only end of the probe that exits cleanly.

So the owner of a graph captured into forgets its handle, and the owner of a conditional body's parent is closed
without destroying it (a leak of one graph, instead of a crash at exit). ``graphs.capture_into`` reports the
invalidation here (``driver_took``); ``Graph`` registers the handles it owns and ``graphs.conditional`` the bodies
of a Graph's conditional nodes.
"""
from __future__ import annotations

import weakref
from typing import Protocol

__all__ = ["register_owner", "register_body", "driver_took"]



class _Owner(Protocol):
    def _driver_took(self, why: str) -> None: ...


_owners: "weakref.WeakValueDictionary[int, _Owner]" = weakref.WeakValueDictionary()  # graph -> its owner
_parents: "weakref.WeakValueDictionary[int, _Owner]" = weakref.WeakValueDictionary()  # body -> parent's owner


def _key(handle) -> int:
    return int(getattr(handle, "handle", handle))


def register_owner(handle, owner: _Owner) -> None:
    """``owner`` (with a ``_driver_took(why)`` method) destroys graph ``handle`` when it is closed."""
    _owners[_key(handle)] = owner


def register_body(body, parent_owner: _Owner) -> None:
    """``body`` is a conditional body of the graph owned by ``parent_owner`` (the driver frees it with the parent)."""
    _parents[_key(body)] = parent_owner


def driver_took(handle) -> str:
    """The driver destroyed graph ``handle`` (an invalidated capture into it): its owner forgets it, the owner of
    its parent (a conditional body's) is closed without destroying the parent. Returns what was done, for the
    error's note ("" when no cugraphlab object owned either)."""
    key = _key(handle)
    said = []
    owner = _owners.pop(key, None)
    if owner is not None:
        owner._driver_took("the driver destroyed this graph when the capture into it was invalidated")
        said.append("the driver destroyed the graph captured into; its Graph object is closed")
    parent = _parents.pop(key, None)
    if parent is not None:
        parent._driver_took("a capture into one of its conditional bodies was invalidated: the driver destroyed "
                            "the body, and destroying this graph now would crash the process, so it is left to the "
                            "driver (leaked)")
        said.append("the driver destroyed the conditional body captured into; its parent Graph is closed without "
                    "being destroyed (destroying it crashes the driver), so build the graph again")
    return "; ".join(said)
