"""An L2 read roof of our own: a read-only kernel (kernels/l2read.cu) over a working set that fits in L2, read again
and again, timed with events; the bytes it reads per second are the rate the chain's kernels can at most read L2.

The copy roof (``bench.probes.copy_roof``: ``cuMemcpyDtoDAsync``) is not an upper bound for kernels reading L2: the
chain's add and sub read 8,025-8,192 GB/s *effective* on the H200, above the 4,997 GB/s L2 copy roof. This probe
measures reading alone, in the driver-call sequence

    cuMemAlloc (uint32 words) + cuMemcpyHtoDAsync (random words)   # the working set, written once
    cuLaunchKernel(l2read, grid, block, args=(out, data, n4, reps))  # captured U times into a graph, replayed
    cuEventRecord / cuEventElapsedTime around the replays          # device time per launch

and checks each launch shape's output exactly: unsigned 32-bit sums wrap modulo 2^32 whatever the order, so
``l2read_reference`` gives the kernel's per-block sums bit for bit. One launch reads the working set ``reps`` times
(``reps_for``: at least ~128 MiB per launch) so that the gap between launches is a small part of each launch.
"""
from __future__ import annotations

import math

import numpy as np

from cugraphlab.core._resource import Resource
from cugraphlab.core.errors import InvalidArgumentError, positive_int
from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs

__all__ = ["L2ReadProbe", "l2read_reference", "reps_for", "read_bytes", "L2READ_SIGNATURE", "WORD_BYTES",
           "OUT_POISON"]

#: Bytes one load of the kernel reads (a uint4).
WORD_BYTES = 16
L2READ_SIGNATURE = ("ptr", "ptr", "u64", "u64")
#: Written into the output before a check: a slot still holding it (or a slot past the grid that lost it) fails.
OUT_POISON = 0x7FC0DEAD


def reps_for(nbytes: int, target_bytes: int = 128 << 20) -> int:
    """Repetitions of a working set of ``nbytes`` that read at least ``target_bytes`` per launch (at least 1)."""
    positive_int("working-set bytes", nbytes)
    return max(1, math.ceil(target_bytes / nbytes))


def read_bytes(n4: int, reps: int) -> int:
    """Bytes one launch reads: ``n4`` 16-byte words, ``reps`` times."""
    return WORD_BYTES * n4 * reps


def l2read_reference(words: np.ndarray, grid: int, block: int, reps: int) -> np.ndarray:
    """The per-block sums kernels/l2read.cu writes, computed exactly: uint32[grid].

    ``words``: the working set as uint32 (a multiple of 4: n4 16-byte words). Thread t of block b sums, in
    repetition r, the four lanes of word (i + r * block) mod n4 for every i = b * block + t + k * grid * block < n4;
    the block's sum is the wrapping (mod 2^32) sum over its threads and repetitions."""
    words = np.ascontiguousarray(words, dtype=np.uint32)
    if words.size == 0 or words.size % 4:
        raise InvalidArgumentError(f"the working set must be a positive multiple of 4 words, got {words.size}")
    positive_int("grid", grid)
    positive_int("block", block)
    positive_int("reps", reps)
    n4 = words.size // 4
    lanes = words.reshape(n4, 4).astype(np.uint64).sum(axis=1)  # < 2^34 each: no overflow below
    stride = grid * block
    rounds = -(-n4 // stride)
    total = np.zeros(grid, dtype=np.uint64)
    padded = np.zeros(rounds * stride, dtype=np.uint64)
    for r in range(reps):
        shift = (r * block) % n4
        padded[:n4] = np.roll(lanes, -shift)  # virtual word i holds word (i + shift) mod n4
        total += padded.reshape(rounds, grid, block).sum(axis=(0, 2)) & np.uint64(0xFFFFFFFF)
    return (total & np.uint64(0xFFFFFFFF)).astype(np.uint32)


class L2ReadProbe(Resource):
    """A working set of ``nbytes`` random uint32 words on the device and the l2read kernel launched over it.

    ``kernel``: the "l2read" Kernel (``device.load_kernels(names=["l2read"])["l2read"]``); ``stream``: where launches
    go; ``max_grid``: the largest grid any launch will use (the output holds one uint32 per block, plus one slot
    past it that must keep its poison). ``launch(grid, block, reps)`` is a ready Launch; ``mismatches(...)``
    poisons the output, launches once and compares with ``l2read_reference``.
    """

    def __init__(self, device, nbytes: int, *, kernel, stream, max_grid: int, seed: int | None = None):
        positive_int("working-set bytes", nbytes)
        self.n4 = max(1, nbytes // WORD_BYTES)
        self.nbytes = self.n4 * WORD_BYTES
        self.max_grid = positive_int("max_grid", max_grid)
        self.kernel, self.stream = kernel, stream
        rng = np.random.default_rng(seed)
        self.host = rng.integers(0, 2**32, size=4 * self.n4, dtype=np.uint32)
        try:
            self.data = self.adopt(device.array(4 * self.n4, "uint32"))
            self.out = self.adopt(device.array(self.max_grid + 1, "uint32"))
            self.data.copy_from(self.host, stream)
        except BaseException:
            self.close()
            raise

    def launch(self, grid: int, block: int, reps: int) -> Launch:
        """One l2read launch over the whole working set, ``reps`` times (cuLaunchKernel's arguments packed once)."""
        if grid > self.max_grid:
            raise InvalidArgumentError(f"grid {grid} exceeds this probe's max_grid {self.max_grid}")
        args = PackedArgs(L2READ_SIGNATURE, (self.out, self.data, self.n4, positive_int("reps", reps)))
        return Launch(self.kernel, args, LaunchConfig(grid, block), self.stream)

    def mismatches(self, grid: int, block: int, reps: int) -> int:
        """Poison the output, launch once, and count the blocks whose sum differs from NumPy's (plus 1 if the slot
        past the grid was written)."""
        self.out.fill_bits(OUT_POISON, self.stream)
        self.launch(grid, block, reps)()
        got = self.out.to_numpy(stream=self.stream)
        want = l2read_reference(self.host, grid, block, reps)
        bad = int(np.count_nonzero(got[:grid] != want))
        return bad + int(got[grid] != OUT_POISON)

    def describe(self) -> str:
        return f"l2read over {self.nbytes / 2**20:g} MiB"


#: Working sets (MiB): the chain's 8 and 12 MiB per kernel and its 24 MiB in all, and one far beyond the L2 (DRAM).
READ_MIB = (8, 12, 24, 256)
#: (block, blocks per SM) shapes tried for the roof: full and half occupancy in 256- to 1,024-thread blocks.
READ_SHAPES = ((256, 2), (256, 4), (256, 8), (512, 4), (1024, 2))


def measure_l2_read(device, result, *, sizes_mib=READ_MIB, shapes=READ_SHAPES, per_graph: int = 10,
                    target_ms: float = 4.0, rounds: int = 9, seed: int = 0, say=print) -> None:
    """GB/s of the l2read kernel for each working set and shape (rotated rounds, device clock per launch), each
    checked exactly; rows "read_<MiB>_<block>x<per SM>" in ``result`` (a studies.floor.record.FloorStudiesResult)
    and the best shape per working set in ``result.sections["l2_read"]``."""
    import contextlib

    from cugraphlab.bench.timing import timed_loop
    from cugraphlab.core.launch import grid_for
    from cugraphlab.experiment.runners import Runner
    from studies.floor.record import iters_for, rotated_rounds

    l2 = int(device.attribute("L2_CACHE_SIZE"))
    sm = device.sm_count
    with contextlib.ExitStack() as stack:
        e0, e1 = stack.enter_context(device.create_event()), stack.enter_context(device.create_event())
        stream = stack.enter_context(device.create_stream())
        kernel = stack.enter_context(device.load_kernels(names=["l2read"]))["l2read"]
        variants = {}
        for mib in sizes_mib:
            n4 = (mib << 20) // WORD_BYTES
            grids = {(blk, bps): grid_for(n4, blk, sm, bps) for blk, bps in shapes}
            probe = stack.enter_context(L2ReadProbe(device, mib << 20, kernel=kernel, stream=stream,
                                                    max_grid=max(grids.values()), seed=seed + mib))
            reps = reps_for(probe.nbytes)
            for (blk, bps), grid in grids.items():
                runner = stack.enter_context(Runner([probe.launch(grid, blk, reps)], stream))
                run = (lambda k, r=runner: r.graphs(k // per_graph, per_graph))
                run(per_graph)  # capture, instantiate, upload, warm
                us = timed_loop(stream, run, per_graph, e0, e1)[1]
                iters = iters_for(us, target_ms, multiple=per_graph, lo=per_graph, hi=100 * per_graph)
                variants[f"{mib}_{blk}x{bps}"] = (probe, grid, blk, bps, reps, run, iters)
        samples = rotated_rounds(list(variants), rounds, lambda name: timed_loop(
            stream, variants[name][5], variants[name][6], e0, e1)[1])
        best: dict[int, tuple[float, str]] = {}
        for name, (probe, grid, blk, bps, reps, _run, iters) in variants.items():
            nbytes = read_bytes(probe.n4, reps)
            gbps = [nbytes / us / 1e3 for us in samples[name]]
            ok = probe.mismatches(grid, blk, reps) == 0
            mib = probe.nbytes >> 20
            where = "L2" if probe.nbytes * 2 <= l2 else ("L2 (more than half of it)" if probe.nbytes <= l2
                                                          else "DRAM (exceeds L2)")
            row = result.add("l2_read", f"read_{name}", f"read {mib} MiB x {reps}, block {blk}, {bps}/SM (grid "
                             f"{grid}): {where}", gbps, unit="GB/s", size=probe.nbytes, verified=ok,
                             derived="bytes read / device time per launch", grid=grid, block=blk, blocks_per_sm=bps,
                             reps=reps, bytes_per_launch=nbytes, iters=iters, working_set=where)
            row.extra["us_per_launch"] = nbytes / row.median / 1e3
            if mib not in best or row.median > best[mib][0]:
                best[mib] = (row.median, name)
        result.sections["l2_read"] = {"l2_bytes": l2, "per_graph": per_graph, "rounds": rounds,
                                      "best": {str(m): {"gbps": g, "row": f"read_{k}"} for m, (g, k) in best.items()}}
        for mib, (g, name) in sorted(best.items()):
            say(f"l2_read {mib} MiB: best {g:,.0f} GB/s ({name})")
