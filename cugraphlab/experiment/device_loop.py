"""The chain launched from the GPU (graphs.device_launch): fire-and-forget, tail launch, and loops the GPU drives.

    work graph W (device):  KERNEL add -> KERNEL mul -> KERNEL sub -> KERNEL relu
    (a) launcher L (host):  KERNEL dl_launch(W, cudaStreamGraphFireAndForget)   W runs beside L, inside L's launch
    (b) launcher L (host):  KERNEL dl_launch(W, cudaStreamGraphTailLaunch)      W runs once L has finished
    (c) self loop G (device):  the chain -> KERNEL dl_relaunch                   relaunches G (cudaGetCurrentGraphExec)
                                                                                 while the condition holds
    (d) scheduler S (device):  KERNEL dl_schedule(W)                             tail-launches W, then itself, while
                                                                                 the condition holds
    (e) folded F (device):     add -> mul -> sub -> KERNEL dl_relu_relaunch      relu whose last block decides and
                                                                                 relaunches F: no decision node
    (f) every K, F_K (device): (add -> mul -> sub -> relu) x (K-1),              K iterations per graph launch; the
                               add -> mul -> sub -> KERNEL dl_relu_relaunch      decision once per K (count += K)

The condition is the one kernels/conditional.cu's threshold loop uses: after each iteration add the sum of the first
``probe`` outputs to a float32 total and go on while the total is below ``threshold`` and fewer than ``limit``
iterations ran (probe 0, threshold +inf: a plain counter). With ``feedback`` the chain's last op writes x itself, so
iteration k+1 computes on iteration k's result: after N iterations x holds the chain applied N times, which
``predict_loop`` computes in NumPy float32 and the checks compare bit for bit, with the count of iterations.

The folded loops (e, f) need a chain ending in relu. (f) decides once per K iterations: a counted loop is exact
when its count is a multiple of K (others are refused); a threshold loop adds the last iteration's probe K times
per decision, which without feedback equals the per-iteration total, so it stops at the first multiple of K at or
past where the per-iteration loop stops (up to K-1 iterations more; ``predict_loop(every=K)``). With feedback the
K-1 earlier outputs are overwritten before the decision, so threshold loops with feedback are refused there.

One host call starts a loop (cuMemsetD32Async of the 32-byte state, cuGraphLaunch of G or S); everything after is
decided on the GPU. A failed device-side launch leaves its cudaError_t in the state, and the check says so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core._calls import cu
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..core.link import load_relocatable
from ..graphs.build import add_kernel_node, add_launch_sequence
from ..graphs.device_launch import (
    DEVICE_STREAMS,
    DeviceGraphExec,
    cuda_error_name,
    instantiate_for_device_launch,
    require_device_launch,
)
from ..graphs.exec import Graph, GraphExec, ready_exec
from .chain import Chain
from .device_loop_runs import DeviceLoopCheck, DeviceLoopRuns, every_label, predict_loop
from .ops import op_arguments

__all__ = ["DEVLAUNCH_KERNELS", "RELAUNCH_FOLD_KERNEL", "STATE_WORDS", "COLUMNS", "load_devlaunch_kernels", "predict_loop",
           "every_label", "DeviceLoopState", "DeviceLoopCheck", "DeviceLoop", "device_loop"]

RELAUNCH_FOLD_KERNEL = "dl_relu_relaunch"  # the chain's relu with the self loop's decision and relaunch folded in
DEVLAUNCH_KERNELS = ("devlaunch", "dl_launch", "dl_relaunch", "dl_schedule", RELAUNCH_FOLD_KERNEL)
STATE_WORDS = 8  # struct CglDevLoop: 32 bytes
#: The timeline's columns (kernels/devlaunch.cu): %globaltimer ns per row, row = iterations done when stamped.
COLUMNS = ("work start", "launcher start", "launch returned", "target start")
_ONE_WARP = LaunchConfig(1, 32)
_NO_LIMIT = (1 << 63) - 1


def load_devlaunch_kernels(device, cache=None):
    """kernels/devlaunch.cu built relocatable with the device runtime (core.link) and loaded: a KernelSet whose
    kernels are DEVLAUNCH_KERNELS. UnsupportedError where nvJitLink, libcudadevrt.a or the arch cannot."""
    return load_relocatable(device, "devlaunch", DEVLAUNCH_KERNELS, cache=cache)


@dataclass(frozen=True)
class DeviceLoopState:
    """What the devlaunch kernels left in device memory."""

    count: int  # iterations completed
    acc: float  # running total (threshold loops)
    status: int  # first cudaError_t of a device-side launch; 0: none failed
    started: int
    launches: int  # device-side launches that succeeded

    @property
    def status_name(self) -> str:
        return cuda_error_name(self.status)


class DeviceLoop(DeviceLoopRuns, Resource):
    """Device-launched graphs of one :class:`Chain` (its buffers, kernels and stream) and their checks.

    Owns the devlaunch kernels, the 32-byte loop state, the timeline slots (``capacity`` rows) and every
    executable graph it made (closed first, before the buffers they use by address).
    """

    def __init__(self, chain: Chain, *, kernels=None, capacity: int = 4096):
        self.chain = chain
        self.device = device = chain.device
        self.note = require_device_launch(device)
        self.capacity = positive_int("capacity", capacity)
        self._keep: list[PackedArgs] = []
        self._execs: dict[tuple, GraphExec] = {}
        try:
            if kernels is None:
                kernels = self.adopt(load_devlaunch_kernels(device))
            self.kernels = kernels
            self.state = self.adopt(device.array(STATE_WORDS, "uint32"))
            self.slots = self.adopt(device.array(self.capacity * 8, "uint32"))  # 4 u64 per row
            self.state.fill_bits(0)
            self.slots.fill_bits(0)
            self._feedback_launches = self._make_feedback_launches()
        except BaseException:
            self.close()
            raise

    # --- launches and nodes ------------------------------------------------------------------------------------
    def _op_args(self, feedback: bool) -> list[tuple[str, tuple[str, ...], tuple]]:
        """(kernel, signature, values) of each op; with ``feedback`` the last op writes x."""
        c = self.chain
        outs = list(c.outs[:-1]) + [c.x] if feedback else list(c.outs)
        return op_arguments(c.ops, c.x, c.y, outs, c.scalar, c.n)

    def _make_feedback_launches(self) -> list[Launch]:
        """The chain's launches with its last op writing x: each run computes on the previous result."""
        c = self.chain
        return [Launch(c.kernels[name], PackedArgs(sig, args), c.config, c.stream)
                for name, sig, args in self._op_args(True)]

    def chain_launches(self, feedback: bool = False) -> list[Launch]:
        return self._feedback_launches if feedback else list(self.chain.launches)

    def result_buffer(self, feedback: bool = False):
        """Where a loop's result is: x with feedback, else the chain's output."""
        return self.chain.x if feedback else self.chain.out

    def _node(self, graph, deps, kernel: str, signature, values):
        launch = Launch(self.kernels[kernel], PackedArgs(signature, values), _ONE_WARP, self.chain.stream)
        self._keep.append(launch.args)  # the driver copied them into the node; kept anyway
        return add_kernel_node(graph, launch, deps)

    def _slots(self, stamped: bool) -> tuple[int, int]:
        return (self.slots.ptr, self.capacity) if stamped else (0, 0)

    def _mark(self, graph, deps, column: int, advance: bool, stamped: bool = True):
        ptr, cap = self._slots(stamped)
        return self._node(graph, deps, "devlaunch", ("ptr", "ptr", "u64", "u32", "i32"),
                          (self.state, ptr, cap, column, 1 if advance else 0))

    def _every(self, limit: int, every, threshold, probe, feedback: bool) -> int:
        """``every`` checked for a loop deciding once per ``every`` iterations (InvalidArgumentError: one line)."""
        every = positive_int("every", every)
        if limit % every:
            raise InvalidArgumentError(
                f"a self loop with a {every_label(every)} runs whole graphs of {every} iterations: the count "
                f"({limit}) must be a multiple of {every}")
        if every > 1 and feedback and int(probe) and not math.isinf(float(np.float32(threshold))):
            raise InvalidArgumentError(
                f"a threshold loop with feedback and a {every_label(every)} cannot be checked: the {every - 1} "
                f"earlier outputs of each graph are overwritten before the decision reads the probe (use every=1, "
                f"no feedback, or a counted loop)")
        return every

    def _decision(self, limit, threshold, probe) -> tuple:
        limit = positive_int("limit", limit)
        probe = int(probe)
        if probe < 0 or probe > self.chain.n:
            raise InvalidArgumentError(f"probe must be 0..{self.chain.n}, got {probe}")
        thr = np.float32(threshold)
        if math.isnan(float(thr)):
            raise InvalidArgumentError("threshold must be a float32 or inf, got NaN")
        return limit, float(thr), probe

    # --- graphs (each new Graph is owned by the caller) --------------------------------------------------------
    def build_work(self, feedback: bool = False, stamped: bool = False) -> Graph:
        """W: [devlaunch mark, column 0 ->] the chain's kernels."""
        graph = Graph(self.device)
        try:
            deps = [self._mark(graph, [], 0, False)] if stamped else []
            add_launch_sequence(graph, self.chain_launches(feedback), deps)
        except BaseException:
            graph.close()
            raise
        return graph

    def build_self(self, limit: int, threshold: float = math.inf, probe: int = 0, *, feedback: bool = False,
                   stamped: bool = False, with_chain: bool = True) -> Graph:
        """G: [mark ->] the chain -> dl_relaunch, which tail-launches G itself while the condition holds.
        ``with_chain=False``: dl_relaunch alone, no marker either (the cost of the relaunch itself)."""
        limit, thr, probe = self._decision(limit, threshold, probe)
        graph = Graph(self.device)
        try:
            deps = [self._mark(graph, [], 0, False)] if stamped and with_chain else []
            if with_chain:
                deps = add_launch_sequence(graph, self.chain_launches(feedback), deps)[-1:]
            ptr, cap = self._slots(stamped)
            self._node(graph, deps, "dl_relaunch", ("ptr", "ptr", "u64", "f32", "u64", "ptr", "u64"),
                       (self.state, self.result_buffer(feedback), probe, thr, limit, ptr, cap))
        except BaseException:
            graph.close()
            raise
        return graph

    def folded_launches(self, limit: int, threshold: float = math.inf, probe: int = 0, *, every: int = 1,
                        feedback: bool = False, stamped: bool = False) -> list[Launch]:
        """The chain's launches ``every`` times over, the very last relu replaced by dl_relu_relaunch (same grid,
        block and relu arithmetic; its last block decides once per ``every`` iterations and tail-launches the
        graph it runs in). The chain must end in relu; ``limit`` must be a multiple of ``every``."""
        limit, thr, probe = self._decision(limit, threshold, probe)
        every = self._every(limit, every, thr, probe, feedback)
        c = self.chain
        if c.ops[-1] != "relu":
            raise InvalidArgumentError(f"the folded self loop needs a chain ending in relu (its last kernel "
                                       f"decides), got {','.join(c.ops)}")
        _name, signature, values = self._op_args(feedback)[-1]
        ptr, cap = self._slots(stamped)
        fold = Launch(self.kernels[RELAUNCH_FOLD_KERNEL],
                      PackedArgs((*signature, "ptr", "u64", "f32", "u64", "u64", "ptr", "u64"),
                                 (*values, self.state, probe, thr, limit, every, ptr, cap)), c.config, c.stream)
        self._keep.append(fold.args)
        chain = self.chain_launches(feedback)
        return chain * (every - 1) + chain[:-1] + [fold]

    def build_folded(self, limit: int, threshold: float = math.inf, probe: int = 0, *, every: int = 1,
                     feedback: bool = False, stamped: bool = False) -> Graph:
        """F: [mark ->] add -> mul -> sub -> dl_relu_relaunch (``every`` = 1), or F_K: K = ``every`` iterations
        of the chain, the last relu deciding once per K. No separate decision node."""
        graph = Graph(self.device)
        try:
            deps = [self._mark(graph, [], 0, False)] if stamped else []
            add_launch_sequence(graph, self.folded_launches(limit, threshold, probe, every=every,
                                                            feedback=feedback, stamped=stamped), deps)
        except BaseException:
            graph.close()
            raise
        return graph

    def build_scheduler(self, work: DeviceGraphExec, limit: int, threshold: float = math.inf, probe: int = 0, *,
                        feedback: bool = False, stamped: bool = False) -> Graph:
        """S: dl_schedule, which tail-launches ``work`` and then S itself while the condition holds."""
        limit, thr, probe = self._decision(limit, threshold, probe)
        graph = Graph(self.device)
        try:
            ptr, cap = self._slots(stamped)
            self._node(graph, [], "dl_schedule", ("u64", "ptr", "ptr", "u64", "f32", "u64", "ptr", "u64"),
                       (work.device_handle, self.state, self.result_buffer(feedback), probe, thr, limit, ptr, cap))
        except BaseException:
            graph.close()
            raise
        return graph

    def build_launcher(self, target: DeviceGraphExec, mode: str, stamped: bool = False) -> Graph:
        """L (a host graph): dl_launch(target, named stream ``mode``): "fire_and_forget", "tail" or "sibling"."""
        if mode not in DEVICE_STREAMS:
            raise InvalidArgumentError(f"mode must be one of {', '.join(DEVICE_STREAMS)}, got {mode!r}")
        graph = Graph(self.device)
        try:
            ptr, cap = self._slots(stamped)
            self._node(graph, [], "dl_launch", ("u64", "u64", "ptr", "ptr", "u64"),
                       (target.device_handle, DEVICE_STREAMS[mode], self.state, ptr, cap))
        except BaseException:
            graph.close()
            raise
        return graph

    def build_probe_target(self) -> Graph:
        """T: one devlaunch kernel stamping column 3 ("target start") and counting: the latency probe's target."""
        graph = Graph(self.device)
        try:
            self._mark(graph, [], 3, True)
        except BaseException:
            graph.close()
            raise
        return graph

    # --- executables (made once per key, owned here) ------------------------------------------------------------
    def _device_exec(self, key: tuple, build) -> DeviceGraphExec:
        exe = self._execs.get(key)
        if exe is None:
            self.require_open()
            graph = build()
            try:
                exe = instantiate_for_device_launch(graph, self.chain.stream)
            finally:
                graph.close()
            self._execs[key] = self.adopt(exe)
        return exe

    def _host_exec(self, key: tuple, build) -> GraphExec:
        exe = self._execs.get(key)
        if exe is None:
            self.require_open()
            exe = self._execs[key] = self.adopt(ready_exec(build(), self.chain.stream))
        return exe

    def work_exec(self, feedback: bool = False, stamped: bool = False) -> DeviceGraphExec:
        return self._device_exec(("work", feedback, stamped), lambda: self.build_work(feedback, stamped))

    def self_exec(self, limit: int, threshold: float = math.inf, probe: int = 0, *, feedback: bool = False,
                  stamped: bool = False, with_chain: bool = True) -> DeviceGraphExec:
        key = ("self", int(limit), float(np.float32(threshold)), int(probe), feedback, stamped, with_chain)
        return self._device_exec(key, lambda: self.build_self(limit, threshold, probe, feedback=feedback,
                                                              stamped=stamped, with_chain=with_chain))

    def scheduler_exec(self, limit: int, threshold: float = math.inf, probe: int = 0, *, feedback: bool = False,
                       stamped: bool = False) -> DeviceGraphExec:
        work = self.work_exec(feedback, stamped)
        key = ("sched", int(limit), float(np.float32(threshold)), int(probe), feedback, stamped)
        return self._device_exec(key, lambda: self.build_scheduler(work, limit, threshold, probe, feedback=feedback,
                                                                   stamped=stamped))

    def folded_exec(self, limit: int, threshold: float = math.inf, probe: int = 0, *, every: int = 1,
                    feedback: bool = False, stamped: bool = False) -> DeviceGraphExec:
        key = ("folded", int(limit), float(np.float32(threshold)), int(probe), int(every), feedback, stamped)
        return self._device_exec(key, lambda: self.build_folded(limit, threshold, probe, every=every,
                                                                feedback=feedback, stamped=stamped))

    def probe_exec(self) -> DeviceGraphExec:
        return self._device_exec(("probe",), self.build_probe_target)

    def launcher_exec(self, mode: str, target: str = "work", *, feedback: bool = False,
                      stamped: bool = False) -> GraphExec:
        """L for ``mode`` around the work graph (``target="work"``) or the latency probe (``"probe"``)."""
        tgt = self.work_exec(feedback) if target == "work" else self.probe_exec()
        return self._host_exec(("launcher", mode, target, feedback, stamped),
                               lambda: self.build_launcher(tgt, mode, stamped))

    # --- state ---------------------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Zero the loop state on the chain's stream (cuMemsetD32Async; ordered before what is enqueued next)."""
        cu("cuMemsetD32Async", self.state.handle, 0, STATE_WORDS, self.chain.stream.handle)

    def read_state(self) -> DeviceLoopState:
        """The loop state (waits for the chain's stream)."""
        w = self.state.to_numpy(stream=self.chain.stream)
        return DeviceLoopState(int(w[:2].view(np.uint64)[0]), float(w[2:3].view(np.float32)[0]), int(w[3]),
                               int(w[4]), int(w[5]))

    def read_slots(self, rows: int) -> np.ndarray:
        """The first ``rows`` rows of the timeline, (rows, 4) uint64 ns (0: never stamped); waits for the stream."""
        rows = min(positive_int("rows", rows), self.capacity)
        words = self.slots.to_numpy(stream=self.chain.stream)
        return words.view(np.uint64).reshape(self.capacity, 4)[:rows].copy()

    def clear_slots(self) -> None:
        cu("cuMemsetD32Async", self.slots.handle, 0, self.capacity * 8, self.chain.stream.handle)

    def fresh(self) -> None:
        """Fresh random inputs, poisoned outputs and a poisoned state (the loop's own reset must clear it)."""
        self.chain.randomize()
        self.chain.poison()
        self.state.poison(self.chain.stream)

    # --- enqueueing (for timers: nothing waits) -----------------------------------------------------------------
    def enqueue(self, exe: GraphExec) -> None:
        """Reset the state and launch ``exe`` from the host: one whole device-driven loop (or launch)."""
        self.reset()
        exe.launch(self.chain.stream)

    def __repr__(self) -> str:
        return f"<DeviceLoop over {self.chain.describe()}>"


def device_loop(chain: Chain, **kwargs) -> DeviceLoop:
    """The DeviceLoop of ``chain``, made on first use and closed when the chain is closed (before its buffers). The
    chain keeps it as a dependent, as experiment.conditional does."""
    for kit in chain.dependents:
        if isinstance(kit, DeviceLoop) and kit.chain is chain and not kit.closed:
            return kit
    chain.require_open()
    kit = DeviceLoop(chain, **kwargs)
    chain.add_dependent(kit)
    return kit
