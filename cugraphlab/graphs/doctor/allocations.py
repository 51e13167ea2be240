"""Which device allocations are live, for the replay watch (graphs.doctor.launches): a captured kernel's pointer
argument that no longer lies in a live allocation (the buffer was freed after the capture), or that now lies in a
different allocation than at the capture (freed, and the address handed out again), is read by every replay
without any error (triton-lang/triton#3166). Only allocations made through cugraphlab's door while the watch runs
are known (cuMemAlloc, cuMemAllocAsync, cuMemFree, cuMemFreeAsync); an address the watch never saw allocated is
taken as live."""
from __future__ import annotations

__all__ = ["Allocations"]

_MAX_FREED = 4096  # frees remembered (the oldest are forgotten first)


def _at(where) -> str:
    return f"{where[0]}:{where[1]}" if where and where[0] else "?"


class Allocations:
    """base -> (bytes, generation, where allocated) for the live ones; base -> where freed for the freed ones."""

    def __init__(self):
        self.live: dict[int, tuple[int, int, tuple]] = {}
        self.freed: dict[int, tuple] = {}
        self.count = 0

    def allocated(self, base: int, size: int, where) -> None:
        self.count += 1
        self.live[base] = (size, self.count, where)

    def released(self, base: int, where) -> None:
        if self.live.pop(base, None) is not None or base not in self.freed:
            self.freed[base] = where
            if len(self.freed) > _MAX_FREED:
                del self.freed[next(iter(self.freed))]

    def generation(self, base: int) -> int | None:
        """Which allocation holds ``base`` now (its number), None where the watch did not see it made."""
        held = self.live.get(base)
        return held[1] if held is not None else None

    def changed(self, base: int, end: int, generation: int | None) -> str:
        """How the allocation [base, end) seen at the capture has changed since: "" where it has not (or the watch
        cannot tell), else the words for it."""
        held = self.live.get(base)
        if held is not None:
            if generation is None or held[1] == generation:
                return ""
            return f"now lies in another allocation, made at {_at(held[2])} after the capture"
        if base not in self.freed:
            return ""
        other = next(((b, w) for b, (size, _, w) in self.live.items() if b < end and base < b + size), None)
        if other is not None:
            return (f"was freed at {_at(self.freed[base])} and now lies in another allocation ({hex(other[0])}, "
                    f"made at {_at(other[1])})")
        return f"was freed at {_at(self.freed[base])}: no live allocation holds it"
