"""Ownership of driver handles: ``close()``, context managers, and the garbage collector for forgotten objects.

What an object must free lives in a small holder (``_Holder``): the release functions of its own handles and the child
resources it owns. The finalizer that the garbage collector runs for a forgotten object is registered with the holder,
never with a bound method of the object: the finalizer registry keeps its callback alive, so a callback that reached
the object would keep the object alive too, and it would never be collected (NVIDIA's cuda.core does the same with
its ``_MembersNeededForFinalize``). ``_own`` therefore refuses a release function that is a bound method of the
object or a closure over it.

Order: children are closed first, last adopted first (a graph exec before the buffers it reads, the buffers before
the stream, the stream before the modules); then the object's own handles, last owned first; last of all the lease
of the context they live in (``_live_in``, core/lease.py), so the context outlives every handle made in it, whatever
order objects are closed or collected in. ``close()`` reports a failed release; the finalizer never raises (it may
run at interpreter exit).
"""
from __future__ import annotations

import weakref
from contextlib import nullcontext as _nothing
from typing import Callable, cast

__all__ = ["Resource"]


class _Holder:
    """The handles' release functions and the child resources of one object; never a reference to the object."""

    __slots__ = ("releases", "children", "lease", "__weakref__")

    def __init__(self) -> None:
        self.releases: list[Callable[[], None]] = []
        self.children: list[Resource] = []
        self.lease = None  # a core.lease.ContextLease once the object lives in a context

    def release(self) -> None:
        """Close the children (last adopted first), then release the handles (last owned first) with their context
        current, then give the context's lease back; raise the first failure after trying everything."""
        first: BaseException | None = None
        lease, self.lease = self.lease, None
        try:
            with lease.current() if lease is not None and self.releases else _nothing():
                first = self._release_all()
        except Exception as e:  # making the context current failed: free what can be freed all the same
            first = self._release_all() or e
        finally:
            if lease is not None:
                try:
                    lease.give_back()
                except Exception as e:
                    first = first or e
        if first is not None:
            raise first

    def _release_all(self) -> BaseException | None:
        first: BaseException | None = None
        while self.children:
            try:
                self.children.pop().close()
            except Exception as e:  # keep going: every handle gets its chance
                first = first or e
        while self.releases:
            try:
                self.releases.pop()()
            except Exception as e:
                first = first or e
        return first

    def release_quietly(self) -> None:
        try:
            self.release()
        except Exception:
            pass


def _refers_to(fn: Callable, obj) -> bool:
    """Whether ``fn`` is a bound method of ``obj`` or a closure holding ``obj``."""
    if getattr(fn, "__self__", None) is obj:
        return True
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            if cell.cell_contents is obj:
                return True
        except ValueError:  # an empty cell
            continue
    return False


class Resource:
    """Something that owns driver handles, or other resources, or both.

    Subclasses call ``_own(release)`` once a handle exists (``release`` must not reach the object: capture the
    handle, not ``self``) and ``adopt(child)`` for each resource they own. ``close()`` frees everything (checked:
    errors raise), a garbage-collected object is freed quietly, a second ``close()`` does nothing.
    """

    _holder: _Holder | None = None
    _finalizer: weakref.finalize | None = None

    def _holder_for_owning(self) -> _Holder:
        if self._holder is None:
            holder = _Holder()
            self._holder = holder
            self._finalizer = weakref.finalize(self, _Holder.release_quietly, holder)
        elif self._finalizer is None or not self._finalizer.alive:
            raise RuntimeError(f"{type(self).__name__} is closed: it cannot own anything more")
        return self._holder

    def _live_in(self, device) -> None:
        """Say that this object's handles live in ``device``'s context (call it before making them): the object
        takes a lease of that context (core/lease.py), gives it back after its handles are freed, and makes the
        context current while freeing them. ``device`` None (a stream of another library's with no Device known)
        takes no lease: that library keeps its context."""
        lease_context = getattr(device, "lease_context", None)
        if lease_context is None:
            return
        holder = self._holder_for_owning()
        if holder.lease is None:
            holder.lease = lease_context()

    def _own(self, release: Callable[[], None]) -> None:
        """Register the release function of a handle this object owns."""
        if _refers_to(release, self):
            raise TypeError(f"{type(self).__name__}._own: the release function refers to the object itself, so a "
                            "forgotten object could never be collected; capture the handle instead of self")
        self._holder_for_owning().releases.append(release)

    def adopt(self, child: "Resource") -> "Resource":
        """Own ``child``: it is closed with this object (before this object's own handles). Returns ``child``."""
        self._holder_for_owning().children.append(child)
        return child

    def add_dependent(self, dependent: "Resource") -> None:
        """Close ``dependent`` first when this object is closed explicitly (it uses this object's memory).

        Kept on the object, not in the holder: ``dependent`` may refer back to this object, and the holder must not
        reach the object. When both are forgotten, the garbage collector frees them together.
        """
        self.__dict__.setdefault("_dependents", []).append(dependent)

    @property
    def dependents(self) -> tuple["Resource", ...]:
        """The resources closed before this one (``add_dependent``)."""
        return tuple(self.__dict__.get("_dependents", ()))

    @property
    def closed(self) -> bool:
        return self._finalizer is None or not self._finalizer.alive

    def close(self) -> None:
        """Release everything now; raises if the driver refuses. Idempotent."""
        for dependent in reversed(self.__dict__.pop("_dependents", [])):
            dependent.close()
        fin = self._finalizer
        if fin is None or not fin.alive:
            return
        fin.detach()
        cast(_Holder, self._holder).release()  # a live finalizer was made with the holder

    def require_open(self) -> None:
        if self.closed:
            from .errors import CugraphlabError

            raise CugraphlabError(f"{type(self).__name__} is closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
