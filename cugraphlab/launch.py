"""Launch configuration and kernel arguments packed once.

``PackedArgs`` lays every argument out once in a buffer of 8-byte slots plus the array of pointers to those slots
that cuLaunchKernel wants (``void** kernelParams``); its address is handed to the binding as a plain int, so a
launch does no per-call conversion of arguments. ``Launch`` holds the whole cuLaunchKernel argument tuple: firing
it is one binding call and one status test.
"""
from __future__ import annotations

import ctypes
import struct

from .calls import driver_fn
from .errors import InvalidArgumentError, check

__all__ = ["PackedArgs", "Launch", "grid_for", "SLOT_BYTES", "ARG_FORMATS"]

SLOT_BYTES = 8
# Argument kinds and how they are stored (little-endian, at the start of an 8-byte slot).
ARG_FORMATS = {"ptr": "<Q", "u64": "<Q", "i64": "<q", "u32": "<I", "i32": "<i", "f32": "<f", "f64": "<d"}


def _as_value(kind: str, value):
    if kind == "ptr":
        ptr = getattr(value, "ptr", value)
        if isinstance(ptr, bool) or not isinstance(ptr, int):
            raise InvalidArgumentError(f"a pointer argument needs a DeviceArray or an int address, got {value!r}")
        return ptr
    if kind in ("f32", "f64"):
        return float(value)
    return int(value)


class PackedArgs:
    """Kernel arguments of the given kinds (``"ptr"``, ``"u64"``, ``"f32"`` ...), packed once.

    ``address`` is the ``void**`` to pass as cuLaunchKernel's kernelParams (0 when there are no arguments).
    ``set(i, value)`` rewrites one argument in place; the driver copies arguments at launch, so this is safe between
    launches. Objects passed (DeviceArrays) are kept referenced so their memory outlives the packing.
    """

    def __init__(self, signature, values):
        signature, values = tuple(signature), tuple(values)
        if len(signature) != len(values):
            raise InvalidArgumentError(f"kernel takes {len(signature)} arguments, got {len(values)}")
        for kind in signature:
            if kind not in ARG_FORMATS:
                raise InvalidArgumentError(f"unknown argument kind {kind!r}; known: {', '.join(ARG_FORMATS)}")
        self.signature = signature
        self._keep = list(values)
        n = len(signature)
        self.storage = ctypes.create_string_buffer(max(n, 1) * SLOT_BYTES)
        base = ctypes.addressof(self.storage)
        self.pointers = (ctypes.c_void_p * max(n, 1))(*[base + i * SLOT_BYTES for i in range(n)])
        self.address = ctypes.addressof(self.pointers) if n else 0
        for i, v in enumerate(values):
            self.set(i, v)

    def set(self, i: int, value) -> None:
        kind = self.signature[i]
        struct.pack_into(ARG_FORMATS[kind], self.storage, i * SLOT_BYTES, _as_value(kind, value))
        self._keep[i] = value

    def raw(self) -> bytes:
        """The argument slots as bytes (what the kernel will receive)."""
        return self.storage.raw[: len(self.signature) * SLOT_BYTES]

    def __len__(self) -> int:
        return len(self.signature)


def grid_for(n_items: int, block: int, sm_count: int, blocks_per_sm: int = 32) -> int:
    """Blocks for a grid-stride loop over ``n_items`` work items: one item per thread, capped at a few waves."""
    if block < 1 or block > 1024:
        raise InvalidArgumentError(f"block size must be 1..1024, got {block}")
    needed = -(-max(n_items, 1) // block)
    return max(1, min(needed, sm_count * blocks_per_sm))


def _dims(d) -> tuple[int, int, int]:
    t = (d, 1, 1) if isinstance(d, int) else tuple(d) + (1,) * (3 - len(tuple(d)))
    if len(t) != 3 or any((not isinstance(x, int)) or x < 1 for x in t):
        raise InvalidArgumentError(f"launch dimensions must be 1 to 3 positive ints, got {d!r}")
    return t


class Launch:
    """One kernel launch with everything fixed: call it to enqueue it on its stream."""

    def __init__(self, kernel, args: PackedArgs, grid, block, stream, shared_bytes: int = 0):
        self.kernel, self.args, self.stream = kernel, args, stream
        self.grid, self.block, self.shared_bytes = _dims(grid), _dims(block), shared_bytes
        self.call_args = (kernel.handle, *self.grid, *self.block, shared_bytes, stream.handle, args.address, 0)
        self._fn = driver_fn("cuLaunchKernel")

    def __call__(self) -> None:
        r = self._fn(*self.call_args)
        if r[0]:
            check(r, "cuLaunchKernel")

    def __repr__(self) -> str:
        return f"<Launch {self.kernel.name} grid={self.grid} block={self.block}>"
