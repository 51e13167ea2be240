"""Launch configuration and kernel arguments packed once.

``PackedArgs`` lays every argument out once in a buffer of 8-byte slots plus the array of pointers to those slots
that cuLaunchKernel wants (``void** kernelParams``); its address is handed to the binding as a plain int, so a
launch does no per-call conversion of arguments. ``LaunchConfig`` is the shape of a launch (grid, block, dynamic
shared memory) and whether it is *programmatic* (programmatic dependent launch, sm_90+). ``Launch`` holds the whole
argument tuple of one call: firing it is one binding call and one status test.

Driver API: cuLaunchKernel, or cuLaunchKernelEx with ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``
(CUDA Driver API, "Execution Control").
"""
from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass

from ._calls import driver_fn, driver_module
from .errors import InvalidArgumentError, check

__all__ = ["PackedArgs", "LaunchConfig", "Launch", "grid_for", "dims", "SLOT_BYTES", "ARG_FORMATS"]

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


def dims(d) -> tuple[int, int, int]:
    """Launch dimensions as a 3-tuple from an int or a 1- to 3-tuple of positive ints."""
    t = (d, 1, 1) if isinstance(d, int) else tuple(d) + (1,) * (3 - len(tuple(d)))
    if len(t) != 3 or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in t):
        raise InvalidArgumentError(f"launch dimensions must be 1 to 3 positive ints, got {d!r}")
    return t


@dataclass(frozen=True)
class LaunchConfig:
    """The shape of a launch: grid and block (ints or up to 3-tuples), dynamic shared memory, and ``programmatic``:
    launch through cuLaunchKernelEx with programmatic stream serialization, so the next kernel on the stream may
    start launching before this one ends (programmatic dependent launch; needs sm_90 and kernels that call
    ``griddepcontrol``)."""

    grid: tuple = (1, 1, 1)
    block: tuple = (1, 1, 1)
    shared_bytes: int = 0
    programmatic: bool = False

    def __post_init__(self):
        object.__setattr__(self, "grid", dims(self.grid))
        object.__setattr__(self, "block", dims(self.block))
        if isinstance(self.shared_bytes, bool) or not isinstance(self.shared_bytes, int) or self.shared_bytes < 0:
            raise InvalidArgumentError(f"shared memory bytes must be an int >= 0, got {self.shared_bytes!r}")

    def driver_config(self, stream):
        """A ``CUlaunchConfig`` for cuLaunchKernelEx on ``stream``, with the programmatic attribute when asked.

        Built once per Launch: the binding reads it at each call, so nothing is converted per launch.
        """
        d = driver_module()
        cfg = d.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = self.grid
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.block
        cfg.sharedMemBytes = self.shared_bytes
        cfg.hStream = stream.handle
        if self.programmatic:
            attr = d.CUlaunchAttribute()
            attr.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            attr.value.programmaticStreamSerializationAllowed = 1
            cfg.attrs = [attr]
            cfg.numAttrs = 1
        else:
            cfg.numAttrs = 0
        return cfg


class Launch:
    """One kernel launch with everything fixed: call it to enqueue it on its stream.

    ``fn`` is the binding function (cuLaunchKernel, or cuLaunchKernelEx for a programmatic config) and
    ``call_args`` its whole argument tuple, so a hot loop can fire ``fn(*call_args)`` with nothing else to do.
    """

    def __init__(self, kernel, args: PackedArgs, config: LaunchConfig, stream):
        if not isinstance(config, LaunchConfig):
            raise InvalidArgumentError(f"a Launch needs a LaunchConfig, got {config!r}")
        self.kernel, self.args, self.config, self.stream = kernel, args, config, stream
        if config.programmatic:
            self.api = "cuLaunchKernelEx"
            self._driver_config = config.driver_config(stream)  # kept alive with the launch
            self.call_args = (self._driver_config, kernel.handle, args.address, 0)
        else:
            self.api = "cuLaunchKernel"
            self.call_args = (kernel.handle, *config.grid, *config.block, config.shared_bytes, stream.handle,
                              args.address, 0)
        self.fn = driver_fn(self.api)

    @property
    def grid(self) -> tuple[int, int, int]:
        return self.config.grid

    @property
    def block(self) -> tuple[int, int, int]:
        return self.config.block

    @property
    def shared_bytes(self) -> int:
        return self.config.shared_bytes

    def with_config(self, config: LaunchConfig) -> "Launch":
        """The same kernel and packed arguments on the same stream with another config (e.g. programmatic)."""
        return Launch(self.kernel, self.args, config, self.stream)

    def native(self, *, release_gil: bool = False, cache=None):
        """This launch fired from C: a ``core.native_launch.NativeLaunch`` whose ``fire()`` is one cuLaunchKernel
        with no binding call between (the C is built at first use with the system C compiler; UnsupportedError
        without one, or for a programmatic launch). Owned by the caller: close it, or use ``with``."""
        from .native_launch import NativeLaunch

        return NativeLaunch(self, release_gil=release_gil, cache=cache)

    def __call__(self) -> None:
        r = self.fn(*self.call_args)
        if r[0]:
            check(r, self.api)

    def __repr__(self) -> str:
        kind = " programmatic" if self.config.programmatic else ""
        return f"<Launch {self.kernel.name} grid={self.grid} block={self.block}{kind}>"
