"""Launch configuration and prepared launches: a kernel, its arguments packed once, a shape, and a stream.

    launch = kernel.prepare(("ptr", "ptr", "f32", "u64"), (y, x, 2.0, n), (grid, 256), stream)
    launch()                        # cuLaunchKernel(f, grid, block, smem, stream, kernelParams, NULL): one binding call
    node_launch = kernel.prepare(sig, args, (grid, 256))   # no stream: for graph nodes (graphs.add_kernel_node)
    node_launch.on(stream)()        # the same kernel and packed arguments, bound to a stream

``PackedArgs`` (core.args, where every argument kind is listed) lays the arguments out once; ``LaunchConfig`` is the
shape of a launch (grid, block, dynamic shared memory) and whether it is *programmatic* (programmatic dependent
launch, sm_90+). ``Launch`` holds the whole argument tuple of one call: firing it is one binding call and one
status test. A Launch made without a stream can be added to a graph as a kernel node (which needs no stream) and
bound to one later with ``on(stream)``; calling it unbound raises.

Driver API: cuLaunchKernel, or cuLaunchKernelEx with ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``
(CUDA Driver API, "Execution Control").
"""
from __future__ import annotations

from dataclasses import dataclass

from ._calls import driver_fn, driver_module
from .args import ARG_FORMATS, SLOT_BYTES, PackedArgs
from .errors import InvalidArgumentError, check
from .stream import as_stream

__all__ = ["PackedArgs", "LaunchConfig", "Launch", "grid_for", "dims", "SLOT_BYTES", "ARG_FORMATS",
           "BLOCKS_PER_SM"]

#: Default cap of ``grid_for``: 8 resident blocks per SM. With the package's 256-thread blocks that is 2,048
#: threads per SM, the most an SM of sm_80/sm_90 holds at once: one full wave, the grid-stride loop does the rest.
#: It is the chain's shape (experiment.chain.BLOCKS_PER_SM), measured the fastest of 15 on the H200
#: (benchmarks/tune_launch_config.py; docs/studies/floor.md).
BLOCKS_PER_SM = 8


def grid_for(n_items: int, block: int, sm_count: int, blocks_per_sm: int = BLOCKS_PER_SM) -> int:
    """Blocks for a grid-stride loop over ``n_items`` work items: one item per thread, capped at ``blocks_per_sm``
    blocks per SM (default ``BLOCKS_PER_SM`` = 8: one full wave of 256-thread blocks on sm_80/sm_90).

    Parameters
    ----------
    n_items : int
        Work items, one per thread.
    block : int
        Threads per block, 1..1024.
    sm_count : int
        The device's SMs (``device.sm_count``).
    blocks_per_sm : int, optional
        The cap per SM, ``BLOCKS_PER_SM`` by default.

    Returns
    -------
    int
        The grid size, at least 1.

    Raises
    ------
    InvalidArgumentError
        ``block`` outside 1..1024.
    """
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
    ``griddepcontrol``).

    Parameters
    ----------
    grid : int or tuple of int, optional
        Blocks, 1 to 3 dimensions (missing ones are 1).
    block : int or tuple of int, optional
        Threads per block, 1 to 3 dimensions.
    shared_bytes : int, optional
        Dynamic shared memory per block, 0 by default.
    programmatic : bool, optional
        Launch with programmatic stream serialization (cuLaunchKernelEx).

    Raises
    ------
    InvalidArgumentError
        Dimensions that are not 1 to 3 positive ints, or ``shared_bytes`` < 0.
    """

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

        Parameters
        ----------
        stream : Stream
            The stream the launches go to (its handle is stored in the config).

        Returns
        -------
        CUlaunchConfig
            Keep it alive as long as the launch that uses it.

        Raises
        ------
        AttributeError
            ``stream`` has no ``handle``.
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

    Parameters
    ----------
    kernel : Kernel
        The kernel to launch (core.module.Kernel).
    args : PackedArgs
        Its arguments, packed once.
    config : LaunchConfig
        Grid, block, shared memory, programmatic or not.
    stream : Stream or object, optional
        A Stream (or anything ``Stream.wrap`` takes: a CuPy, PyTorch or cuda.core stream, an int handle), or None
        for a launch meant for graph nodes: ``call_args`` is then None, calling it raises, ``on(stream)`` binds it.

    Raises
    ------
    InvalidArgumentError
        ``config`` is not a LaunchConfig, a stream ``Stream.wrap`` does not know, or (when called) no stream.
    CudaError
        When called: cuLaunchKernel or cuLaunchKernelEx failed (the CUresult and what to do).

    See Also
    --------
    cuLaunchKernel : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html#group__CUDA__EXEC_1gb8f3dc3031b40da29d5f9a7139e52e15
    cuLaunchKernelEx : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html#group__CUDA__EXEC_1gb9c891eb6bb8f4089758e64c9c976db9
    """

    def __init__(self, kernel, args: PackedArgs, config: LaunchConfig, stream=None):
        if not isinstance(config, LaunchConfig):
            raise InvalidArgumentError(f"a Launch needs a LaunchConfig, got {config!r}")
        stream = as_stream(stream)
        self.kernel, self.args, self.config, self.stream = kernel, args, config, stream
        self.api = "cuLaunchKernelEx" if config.programmatic else "cuLaunchKernel"
        self.fn = driver_fn(self.api)
        if stream is None:
            self.call_args = None
        elif config.programmatic:
            self._driver_config = config.driver_config(stream)  # kept alive with the launch
            self.call_args = (self._driver_config, kernel.handle, args.address, 0)
        else:
            self.call_args = (kernel.handle, *config.grid, *config.block, config.shared_bytes, stream.handle,
                              args.address, 0)

    @property
    def bound(self) -> bool:
        """Whether this launch has a stream (can be called)."""
        return self.stream is not None

    @property
    def grid(self) -> tuple[int, int, int]:
        return self.config.grid

    @property
    def block(self) -> tuple[int, int, int]:
        return self.config.block

    @property
    def shared_bytes(self) -> int:
        return self.config.shared_bytes

    def on(self, stream) -> "Launch":
        """The same kernel, packed arguments (shared, not copied) and config, bound to ``stream``.

        Parameters
        ----------
        stream : Stream or object
            A Stream, or anything ``Stream.wrap`` takes.

        Returns
        -------
        Launch
            A new Launch; this one is unchanged.

        Raises
        ------
        InvalidArgumentError
            ``stream`` is None, or no stream ``Stream.wrap`` knows.
        """
        if stream is None:
            raise InvalidArgumentError("Launch.on needs a stream")
        return Launch(self.kernel, self.args, self.config, stream)

    def with_config(self, config: LaunchConfig) -> "Launch":
        """The same kernel and packed arguments on the same stream (or none) with another config (e.g.
        programmatic).

        Parameters
        ----------
        config : LaunchConfig
            The new shape.

        Returns
        -------
        Launch
            A new Launch; this one is unchanged.

        Raises
        ------
        InvalidArgumentError
            ``config`` is not a LaunchConfig.
        """
        return Launch(self.kernel, self.args, config, self.stream)

    def native(self, *, release_gil: bool = False, cache=None):
        """This launch fired from C: a ``core.native_launch.NativeLaunch`` whose ``fire()`` is one cuLaunchKernel
        with no binding call between (the C is built at first use with the system C compiler; UnsupportedError
        without one, or for a programmatic launch). Owned by the caller: close it, or use ``with``.

        Parameters
        ----------
        release_gil : bool, optional
            Let other Python threads run during the C call.
        cache : Cache, optional
            Where the built C library is kept (default: the package's cache).

        Returns
        -------
        NativeLaunch
            ``fire()`` is one cuLaunchKernel from C, with no binding call between.

        Raises
        ------
        UnsupportedError
            No C compiler, or a programmatic launch.
        """
        from .native_launch import NativeLaunch  # native_launch never imports this module back

        return NativeLaunch(self, release_gil=release_gil, cache=cache)

    def __call__(self) -> None:
        if self.call_args is None:
            raise InvalidArgumentError(f"launch of {self.kernel.name} was prepared without a stream (for graph "
                                       "nodes): bind it with launch.on(stream)")
        r = self.fn(*self.call_args)
        if r[0]:
            check(r, self.api)

    def __repr__(self) -> str:
        kind = " programmatic" if self.config.programmatic else ""
        unbound = "" if getattr(self, "stream", None) is not None else " unbound"
        return f"<Launch {self.kernel.name} grid={self.grid} block={self.block}{kind}{unbound}>"
