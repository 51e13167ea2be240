"""IF/ELSE and SWITCH conditional nodes around the chain (graphs.conditional): one graph, several bodies, the GPU
chooses which runs.

    IF/ELSE:       KERNEL cond_sign(h, x, probe) -> CONDITIONAL IF (h, 2 bodies)
                   body 0 (sum(x[:probe]) > 0):  add -> mul -> sub -> relu
                   body 1 (otherwise):           add -> mul -> sub            (the chain without relu)
    SWITCH:        KERNEL cond_switch(h, index) -> CONDITIONAL SWITCH (h, K bodies)
                   body i: chain variant i (the chain, without relu, without sub, fused; then again for K > 4)
    K IF nodes:    KERNEL cond_one_hot(h[0..K), index) -> IF h[0] -> IF h[1] -> ... -> IF h[K-1]   (body i: variant i)
    K sizes:       KERNEL cond_switch(h, index) -> CONDITIONAL SWITCH (h, K bodies)
                   body k: the chain over the first n >> k elements of the same buffers
    Any subset:    KERNEL cond_switch | cond_one_hot -> CONDITIONAL SWITCH (h, len(bodies))   (``build_switch``
                   with ``bodies=`` and ``decide=``; with ``variants=identical_chains(ops, K)`` every body is the
                   same chain, which separates the count of bodies and the position of the chosen one from the
                   work a body does), and one IF node decided by either kernel (``build_if``)

What each decision kernel writes into the handle (``condition_value``): cond_switch the index itself, cond_one_hot
(over one handle) 1 when the index is 0 and 0 otherwise; an IF node runs its body when the value is non-zero, a
SWITCH over bodies b[0..m) runs b[value] when value < m (``selected_body`` says which variant body that is).

Every variant writes buffers of its own, so after a launch the chosen body's output must be bit-exact against NumPy
and every other body's output must still hold the poison pattern: a check that knows which body ran, and that
nothing else did. The SWITCH index lives in device memory (the host writes it between launches); an index of K or
more runs no body. The IF/ELSE decision is a value the GPU computes from the inputs; the host predicts it with the
same float32 sum (``predict_sign``) and forces each branch by choosing the inputs' sign.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..graphs.build import add_launch_sequence
from ..graphs.conditional import (
    MAX_SWITCH_BODIES,
    add_conditional_bodies,
    conditional_options,
    create_handle,
    require_conditional_branches,
)
from ..graphs.exec import ExecCache, Graph, GraphExec
from ..graphs.inspect import topology
from .branch_runs import BranchCheck, BranchRuns, predict_sign
from .chain import Chain, chain_grid
from .ops import FUSED_SIGNATURE, op_arguments

__all__ = ["ChainVariant", "chain_variants", "identical_chains", "DECIDERS", "condition_value", "selected_body",
           "sizes_for", "predict_sign", "load_branch_kernels", "BranchCheck",
           "BranchGraphs", "branch_graphs", "MAX_BRANCHES"]

_DECIDE = LaunchConfig(1, 32)  # the one-thread decision kernels: one warp, thread 0 works
MAX_BRANCHES = 8  # bodies of the lessons' SWITCH nodes (the driver takes more: graphs.conditional.MAX_SWITCH_BODIES)
assert MAX_BRANCHES <= MAX_SWITCH_BODIES


@dataclass(frozen=True)
class ChainVariant:
    """One body's work: a chain of ``ops`` launched op by op, or (``fused``) the chain's fused kernel."""

    name: str
    ops: tuple[str, ...]
    fused: bool = False

    def describe(self) -> str:
        return "fused(" + ",".join(self.ops) + ")" if self.fused else " -> ".join(self.ops)


def chain_variants(ops, count: int) -> list[ChainVariant]:
    """``count`` variants of the chain ``ops``: the chain, without relu, without sub, fused, then the same again
    (named "#2", ...). A variant that would drop every op keeps the whole chain (its buffers still tell it apart)."""
    ops = tuple(ops)
    base = [("chain", ops, False),
            ("without relu", tuple(o for o in ops if o != "relu") or ops, False),
            ("without sub", tuple(o for o in ops if o != "sub") or ops, False),
            ("fused", ops, True)]
    out = []
    for i in range(positive_int("branches", count, MAX_BRANCHES)):
        name, v_ops, fused = base[i % len(base)]
        out.append(ChainVariant(name if i < len(base) else f"{name} #{i // len(base) + 1}", v_ops, fused))
    return out


def identical_chains(ops, count: int) -> list[ChainVariant]:
    """``count`` variants that are all the chain ``ops`` (named "chain #0", ...): bodies that differ only by their
    place in the node (each still writes buffers of its own, so the checks tell which ran)."""
    ops = tuple(ops)
    return [ChainVariant(f"chain #{i}", ops) for i in range(positive_int("branches", count, MAX_BRANCHES))]


DECIDERS = ("cond_switch", "cond_one_hot")  # the decision kernels a SWITCH or a single IF node can be built with


def condition_value(decide: str, index: int) -> int:
    """The value ``decide`` writes into its (first) handle when the index in device memory is ``index``:
    cond_switch the index, cond_one_hot (over one handle) 1 for index 0, else 0 (kernels/cond_switch.cu)."""
    if decide == "cond_switch":
        return int(index)
    if decide == "cond_one_hot":
        return 1 if index == 0 else 0
    raise InvalidArgumentError(f"decide must be one of {', '.join(DECIDERS)}, got {decide!r}")


def selected_body(node: str, bodies, decide: str, index: int) -> int | None:
    """The variant body that runs when a ``node`` ("IF" or "SWITCH") over the variant bodies ``bodies`` (their
    indices in the BranchGraphs, in node order; an IF node takes one) is decided by ``decide`` at ``index``;
    None when none runs."""
    value = condition_value(decide, index)
    bodies = tuple(bodies)
    if node == "IF":
        if len(bodies) != 1:
            raise InvalidArgumentError(f"an IF node here has one body, got {len(bodies)}")
        return bodies[0] if value != 0 else None
    if node == "SWITCH":
        return bodies[value] if value < len(bodies) else None
    raise InvalidArgumentError(f"node must be IF or SWITCH, got {node!r}")


def sizes_for(n: int, count: int) -> list[int]:
    """The problem sizes of the K-sizes SWITCH: n, n/2, n/4, ... (at least 1 element each)."""
    return [max(1, int(n) >> k) for k in range(positive_int("branches", count, MAX_BRANCHES))]


def load_branch_kernels(device, cache=None):
    """kernels/cond_switch.cu compiled for ``device`` and loaded; ``ks["cond_sign"]`` and ``ks["cond_one_hot"]``
    work as well as ``ks["cond_switch"]``."""
    ks = device.load_kernels(names=["cond_switch"], options=conditional_options(), cache=cache)
    module = ks.modules["cond_switch"]
    for name in ("cond_one_hot", "cond_sign"):
        ks.kernels[name] = module.kernel(name)
    return ks


class _Body:
    """The launches of one body and the buffers they write (owned by the BranchGraphs)."""

    def __init__(self, variant: ChainVariant, launches: list[Launch], outs: list, result):
        self.variant, self.launches, self.outs, self.result = variant, launches, outs, result


class BranchGraphs(BranchRuns, Resource):
    """Graphs with IF/ELSE and SWITCH nodes around one :class:`Chain` (its inputs, kernels and stream).

    Owns the decision kernels (kernels/cond_switch.cu), the SWITCH index and IF/ELSE decision words in device
    memory, one set of output buffers per chain variant, and every executable it made. ``build_*`` return
    (Graph, info) for inspection; ``run_*`` launch on fresh random inputs with every output poisoned and check.
    Needs a driver for CUDA 12.8 or newer (UnsupportedError, one line, otherwise).

    ``variants``: the bodies' work (default ``chain_variants(chain.ops, branches)``); ``identical_chains`` gives K
    copies of the chain. ``branches`` is then their number.
    """

    def __init__(self, chain: Chain, branches: int = 4, *, kernels=None, probe: int = 32, variants=None):
        self.chain = chain
        self.device = device = chain.device
        require_conditional_branches(device)
        if variants is not None:
            variants = list(variants)
            if not variants or not all(isinstance(v, ChainVariant) for v in variants):
                raise InvalidArgumentError("variants must be a non-empty list of ChainVariant")
            branches = len(variants)
        self.count = positive_int("branches", branches, MAX_BRANCHES)
        self.probe = min(positive_int("probe", probe), chain.n)
        self.variants = variants if variants is not None else chain_variants(chain.ops, self.count)
        self.sizes = sizes_for(chain.n, self.count)
        self._keep: list[PackedArgs] = []
        try:
            if kernels is None:
                kernels = self.adopt(load_branch_kernels(device))
            self.kernels = kernels
            self.index = self.adopt(device.array(1, "uint32"))  # the SWITCH selector, written by the host
            self.taken = self.adopt(device.array(1, "uint32"))  # cond_sign's decision, read back by the checks
            self.index.fill_bits(0)
            self.taken.fill_bits(0)
            self.bodies = [self._body(v) for v in self.variants]
            self.size_launches = [self._size_launches(n) for n in self.sizes]
            self._handle_arrays: list = []  # device copies of handle lists (cond_one_hot reads them)
            self.execs = self.adopt(ExecCache(chain.stream))  # adopted last: closed first, before what they use
        except BaseException:
            self.close()
            raise

    # --- the bodies' work --------------------------------------------------------------------------------------
    def _launch(self, kernel: str, signature, values, config: LaunchConfig) -> Launch:
        launch = Launch(self.kernels[kernel] if kernel.startswith("cond_") else self.chain.kernels[kernel],
                        PackedArgs(signature, values), config, self.chain.stream)
        self._keep.append(launch.args)
        return launch

    def _body(self, variant: ChainVariant) -> _Body:
        c = self.chain
        config = LaunchConfig(c.grid, c.block)
        if variant.fused:
            out = self.adopt(self.device.array(c.n))
            return _Body(variant, [self._launch("fused", FUSED_SIGNATURE, (out, c.x, c.y, c.scalar, c.n), config)],
                         [out], out)
        outs = [self.adopt(self.device.array(c.n)) for _ in variant.ops]
        launches = [self._launch(name, sig, args, config)
                    for name, sig, args in op_arguments(variant.ops, c.x, c.y, outs, c.scalar, c.n)]
        return _Body(variant, launches, outs, outs[-1])

    def _size_launches(self, n: int) -> list[Launch]:
        """The chain over the first ``n`` elements of the chain's own buffers, with a grid for ``n``."""
        c = self.chain
        config = LaunchConfig(chain_grid(n, self.device.sm_count, c.block), c.block)
        return [self._launch(name, sig, args, config)
                for name, sig, args in op_arguments(c.ops, c.x, c.y, c.outs, c.scalar, n)]

    # --- graph construction ----------------------------------------------------------------------------------
    def _ctx(self):
        return self.device.context

    def _decide(self, graph, kernel: str, signature, values):
        return add_launch_sequence(graph, [self._launch(kernel, signature, values, _DECIDE)], ctx=self._ctx())[0]

    def _fill(self, body, launches) -> None:
        add_launch_sequence(body, launches, ctx=self._ctx())  # every node of a body runs in the handle's context

    def _info(self, graph: Graph, kind: str, bodies, labels, decide: str) -> dict:
        """What a build made: the parent and body topologies in words, and ``body_graphs``: the body graph handles
        the driver wrote when the conditional nodes were added (owned by the nodes; reading them back from a node
        would need cuGraphNodeGetParams, which a CUDA 13.0 driver does not export)."""
        return {"kind": kind, "parent": graph.topology().describe(),
                "bodies": [f"body {i} ({label}): " + topology(b).describe() for i, (b, label) in
                           enumerate(zip(bodies, labels))],
                "body_graphs": tuple(bodies), "decide": decide, "chain": self.chain.describe()}

    def _build(self, make) -> tuple[Graph, dict]:
        graph = Graph(self.device)
        try:
            return graph, make(graph)
        except BaseException:
            graph.close()
            raise

    def build_if_else(self) -> tuple[Graph, dict]:
        """cond_sign -> IF node with two bodies: variant 0 when sum(x[:probe]) > 0 (the GPU sums), else variant 1."""
        def make(graph):
            h = create_handle(graph.handle, self._ctx(), None)  # no default: cond_sign decides at every launch
            setter = self._decide(graph, "cond_sign", ("u64", "ptr", "u64", "ptr"),
                                  (int(h), self.chain.x, self.probe, self.taken))
            _node, bodies = add_conditional_bodies(graph.handle, [setter], "IF", h, self._ctx(), 2)
            for body, b in zip(bodies, self.bodies[:2]):
                self._fill(body, b.launches)
            return self._info(graph, "IF/ELSE", bodies, [f"IF: {self.variants[0].describe()}",
                                                         f"ELSE: {self.variants[1].describe()}"],
                              f"cond_sign: sum(x[:{self.probe}]) > 0 in float32, on the GPU")

        return self._build(make)

    def build_switch(self, bodies=None, decide: str = "cond_switch") -> tuple[Graph, dict]:
        """``decide`` -> SWITCH node over the variant bodies ``bodies`` (indices, in node order; default all K, body i
        = variant i); the index in device memory chooses (``selected_body`` says which runs)."""
        order = self._body_order(bodies)
        values = self._decide_values(decide, 1)

        def make(graph):
            h = create_handle(graph.handle, self._ctx(), None)
            setter = self._decide(graph, decide, *values([h]))
            _node, made = add_conditional_bodies(graph.handle, [setter], "SWITCH", h, self._ctx(), len(order))
            for body, i in zip(made, order):
                self._fill(body, self.bodies[i].launches)
            return self._info(graph, "SWITCH", made, [f"variant {i}: {self.variants[i].describe()}" for i in order]
                              if order != tuple(range(self.count)) else [v.describe() for v in self.variants],
                              self._decide_text(decide, "SWITCH"))

        return self._build(make)

    def build_if(self, body: int = 0, decide: str = "cond_one_hot") -> tuple[Graph, dict]:
        """``decide`` -> one IF node whose body is variant ``body``: it runs when the value written is non-zero
        (cond_one_hot: index 0; cond_switch: any index but 0). ``build_if(0, "cond_one_hot")`` is the graph of
        ``build_if_sequence(1)``."""
        (b,) = self._body_order((body,))
        values = self._decide_values(decide, 1)

        def make(graph):
            h = create_handle(graph.handle, self._ctx(), None)
            setter = self._decide(graph, decide, *values([h]))
            _node, (made,) = add_conditional_bodies(graph.handle, [setter], "IF", h, self._ctx(), 1)
            self._fill(made, self.bodies[b].launches)
            return self._info(graph, "IF", [made], [f"IF: {self.variants[b].describe()}"],
                              self._decide_text(decide, "IF"))

        return self._build(make)

    def _body_order(self, bodies) -> tuple[int, ...]:
        order = tuple(range(self.count)) if bodies is None else tuple(bodies)
        if not order or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.count
                            for i in order):
            raise InvalidArgumentError(f"bodies must be variant indices 0..{self.count - 1}, got {bodies!r}")
        return order

    def _decide_values(self, decide: str, handles: int):
        """(signature, values) of the decision kernel ``decide`` for a list of handles."""
        condition_value(decide, 0)  # refuses an unknown kernel before any graph is made
        if decide == "cond_switch":
            return lambda hs: (("u64", "ptr"), (int(hs[0]), self.index))
        return lambda hs: (("ptr", "u32", "ptr"), (self._handles_array(hs), len(hs), self.index))

    @staticmethod
    def _decide_text(decide: str, node: str) -> str:
        if decide == "cond_switch":
            return "cond_switch: the condition is the index in device memory"
        return f"cond_one_hot: the condition is 1 when the index is 0, else 0 ({node})"

    def _handles_array(self, handles) -> object:
        arr = self.adopt(self.device.array(2 * len(handles), "uint32"))  # u64 handles as pairs of words
        arr.copy_from(np.array([int(h) for h in handles], dtype=np.uint64).view(np.uint32))
        self._handle_arrays.append(arr)
        return arr

    def build_if_sequence(self, count: int | None = None) -> tuple[Graph, dict]:
        """cond_one_hot -> ``count`` IF nodes one after the other (default K), IF i running variant i when the
        index is i: what a SWITCH replaces. ``count=1`` is the single IF node (body: variant 0, runs for index 0)."""
        k = self.count if count is None else positive_int("count", count, self.count)

        def make(graph):
            hs = [create_handle(graph.handle, self._ctx(), None) for _ in range(k)]
            prev = self._decide(graph, "cond_one_hot", ("ptr", "u32", "ptr"),
                                (self._handles_array(hs), k, self.index))
            bodies = []
            for h, b in zip(hs, self.bodies):
                prev, (body,) = add_conditional_bodies(graph.handle, [prev], "IF", h, self._ctx(), 1)
                self._fill(body, b.launches)
                bodies.append(body)
            return self._info(graph, f"{k} IF node(s)", bodies, [v.describe() for v in self.variants[:k]],
                              f"cond_one_hot: IF i runs when the index is i (i < {k})")

        return self._build(make)

    def build_sizes_switch(self) -> tuple[Graph, dict]:
        """cond_switch -> SWITCH node with K bodies, body k = the chain over the first sizes[k] elements."""
        def make(graph):
            h = create_handle(graph.handle, self._ctx(), None)
            setter = self._decide(graph, "cond_switch", ("u64", "ptr"), (int(h), self.index))
            _node, bodies = add_conditional_bodies(graph.handle, [setter], "SWITCH", h, self._ctx(), self.count)
            for body, launches in zip(bodies, self.size_launches):
                self._fill(body, launches)
            return self._info(graph, "SWITCH sizes", bodies, [f"{n:,} floats" for n in self.sizes],
                              "cond_switch: the index in device memory picks the problem size")

        return self._build(make)

    def build_size_graph(self, k: int) -> tuple[Graph, dict]:
        """The plain graph of the chain at sizes[k] (explicit kernel nodes, no conditional): one of the K graphs
        the sizes SWITCH replaces."""
        self._size_index(k)

        def make(graph):
            add_launch_sequence(graph, self.size_launches[k])
            return {"kind": "size graph", "size": self.sizes[k], "parent": graph.topology().describe()}

        return self._build(make)

    def build_plain(self) -> tuple[Graph, dict]:
        """Variant 0's launches in a graph with no conditional node: the floor under the IF and SWITCH rows."""
        def make(graph):
            add_launch_sequence(graph, self.bodies[0].launches)
            return {"kind": "no conditional", "parent": graph.topology().describe()}

        return self._build(make)

    def _size_index(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < self.count:
            raise InvalidArgumentError(f"size index must be 0..{self.count - 1}, got {k!r}")
        return k

    # --- executables ------------------------------------------------------------------------------------------
    def exec_of(self, key: str, k: int | None = None) -> GraphExec:
        """The ready executable of ``key``: "if_else", "switch", "if_sequence", "if" (one IF node),
        "sizes_switch", "plain", "size" with ``k`` (the size index), "switch_over" with ``k = (bodies, decide)``
        (``build_switch(bodies, decide)``) or "if_by" with ``k = (body, decide)`` (``build_if(body, decide)``)."""
        builders = {"if_else": self.build_if_else, "switch": self.build_switch,
                    "switch_over": lambda: self.build_switch(*k), "if_by": lambda: self.build_if(*k),
                    "if_sequence": self.build_if_sequence, "if": lambda: self.build_if_sequence(1),
                    "sizes_switch": self.build_sizes_switch, "plain": self.build_plain,
                    "size": lambda: self.build_size_graph(k)}
        if key not in builders:
            raise InvalidArgumentError(f"unknown graph {key!r}; known: {', '.join(builders)}")
        return self.execs.get((key, k), lambda: builders[key]()[0])

    # --- inputs, selection, checks ----------------------------------------------------------------------------
    def set_index(self, i: int) -> None:
        """Write the SWITCH index (any value; K or more selects no body) into device memory, ordered on the
        chain's stream."""
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < 2 ** 32:
            raise InvalidArgumentError(f"the SWITCH index must be an unsigned 32-bit int, got {i!r}")
        self.index.copy_from(np.array([i], dtype=np.uint32), self.chain.stream)

    def describe(self) -> str:
        return f"{self.count} branches over {self.chain.describe()}"

    def __repr__(self) -> str:
        return f"<BranchGraphs {self.describe()}>"


def branch_graphs(chain: Chain, branches: int = 4) -> BranchGraphs:
    """The BranchGraphs of ``chain`` with ``branches`` bodies, made on first use and closed with the chain (before
    its buffers, which its executables read by address), like experiment.conditional.conditional_graphs."""
    for kit in chain.dependents:
        if isinstance(kit, BranchGraphs) and kit.chain is chain and kit.count == branches and not kit.closed:
            return kit
    chain.require_open()
    kit = BranchGraphs(chain, branches)
    chain.add_dependent(kit)
    return kit
