"""Ownership of driver handles: one base class with close(), a context manager and a silent finalizer."""
from __future__ import annotations

import weakref
from typing import Callable

__all__ = ["Resource"]


def _release_quietly(release: Callable[[], None]) -> None:
    # Finalizers run from the garbage collector or at interpreter exit, when the driver may already be gone:
    # they must never raise.
    try:
        release()
    except Exception:
        pass


class Resource:
    """Something that owns a driver handle.

    Subclasses call ``_own(release)`` once the handle exists. ``close()`` releases it (checked: errors raise),
    a garbage-collected or forgotten object is released quietly, and a second ``close()`` does nothing.
    """

    _finalizer: weakref.finalize | None = None
    _release: Callable[[], None] | None = None

    def _own(self, release: Callable[[], None]) -> None:
        self._release = release
        self._finalizer = weakref.finalize(self, _release_quietly, release)

    @property
    def closed(self) -> bool:
        return self._finalizer is None or not self._finalizer.alive

    def close(self) -> None:
        """Release the handle now; raises if the driver refuses. Idempotent."""
        fin = self._finalizer
        if fin is None or not fin.alive:
            return
        fin.detach()
        release, self._release = self._release, None
        if release is not None:
            release()

    def _require_open(self) -> None:
        if self.closed:
            from .errors import CugraphlabError

            raise CugraphlabError(f"{type(self).__name__} is closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
