"""The folded WHILE body with programmatic edges, and with K chain iterations per decision (experiment.conditional).

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL (WHILE, handle h, default value 1)
    body (PDL):    KERNEL add =P=> KERNEL mul =P=> KERNEL sub =P=> KERNEL cond_relu(out, t3, n, h, state, N)

``=P=>`` is a programmatic edge (CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC): the next kernel may launch once every block
of the one before has run ``griddepcontrol.launch_dependents``, and it waits (``griddepcontrol.wait``) for that one
to complete before touching memory. Every kernel of this body is compiled with ``-DCGL_PDL`` (kernels/elementwise.cuh
CGL_BEGIN: trigger, then wait), cond_relu too, so its decision comes after its wait. The body is made one of two
ways:

* ``how="capture"`` (default): the body the node made is captured into (cuStreamBeginCaptureToGraph), the first
  launch a plain cuLaunchKernel, the later ones cuLaunchKernelEx with programmatic stream serialization; capture
  turns each into a node whose edge from the one before is programmatic (graphs.pdl);
* ``how="nodes"``: cuGraphAddNode per kernel with one CUgraphEdgeData of type PROGRAMMATIC from port
  CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC (graphs.pdl_edges).

Whether a driver takes programmatic edges inside a conditional body is not documented. Every refusal (at the
capture, the node call or cuGraphInstantiate, or plain edges kept instead) is one ``ProgrammaticEdgesRefused``
(an UnsupportedError: one line, exit 2 in the CLI).

``every=K`` puts K chain iterations into one body and folds one decision counting K into the last kernel
(``cond_relu_step``): "decision every K iterations". It is exact only for a counted loop whose count is a multiple
of K (the count is checked against the WHILE node only every K iterations), so any other count is refused; a
threshold loop cannot be built this way at all.
"""
from __future__ import annotations

from dataclasses import replace

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import Launch, PackedArgs
from ..graphs.build import add_launch_sequence
from ..graphs.capture_into import capture_into, require_capture_into
from ..graphs.conditional import conditional_options
from ..graphs.exec import ExecCache
from ..graphs.pdl import PDL_OPTIONS, programmatic_edge_count, require_pdl
from ..graphs.pdl_edges import ProgrammaticEdgesRefused, add_programmatic_sequence, describe_with_edges, refused_as

__all__ = ["BUILD_WAYS", "WHILE_FOLD_KERNEL", "STEP_KERNEL", "MAX_EVERY", "PdlWhileParts", "while_label", "check_every",
           "body_launches", "fill_body", "check_programmatic"]

BUILD_WAYS = ("capture", "nodes")  # how the PDL body is filled: stream capture, or cuGraphAddNode with edge data
WHILE_FOLD_KERNEL = "cond_relu"  # kernels/cond_relu.cu: the chain's relu with the counted loop's decision folded in
STEP_KERNEL = "cond_relu_step"  # kernels/cond_relu.cu: relu, then the decision counting `step` iterations
MAX_EVERY = 1000  # a bound on the body's size (4 kernel nodes per iteration), not a driver limit
WHERE = "a WHILE node's body"


def while_label(pdl: bool, every: int) -> str:
    """"WHILE folded, PDL edges", "WHILE folded, decision every 10 iterations", or both: the LoopCheck kind."""
    parts = ["WHILE folded"] + (["PDL edges"] if pdl else []) + (
        [f"decision every {every} iterations"] if every > 1 else [])
    return ", ".join(parts)


def check_every(iterations: int, every: int) -> tuple[int, int]:
    """(iterations, every) checked: ``every`` >= 1 and <= MAX_EVERY, and ``iterations`` a multiple of it (a body of
    K iterations is exact only then). InvalidArgumentError otherwise, before any GPU work."""
    n = positive_int("iterations", iterations)
    k = positive_int("every", every, MAX_EVERY)
    if n % k:
        raise InvalidArgumentError(
            f"a body of {k} chain iterations decides every {k} iterations, so it is exact only for a loop of a "
            f"multiple of {k} iterations; got {n}")
    return n, k


class PdlWhileParts(Resource):
    """The PDL kernels of one chain (its ops and cond_relu, all built with -DCGL_PDL) and the executables made with
    them: adopted kernels first, executables last, so the executables are destroyed before the modules unload."""

    def __init__(self, chain, cache=None):
        device = chain.device
        require_pdl(device, graphs=True)
        names = list(dict.fromkeys(name for name, _sig, _args in chain.op_args()))
        self.chain_kernels = self.adopt(device.load_kernels(names=names, options=PDL_OPTIONS, cache=cache))
        try:
            fold = self.adopt(device.load_kernels(names=[WHILE_FOLD_KERNEL],
                                                  options=(*conditional_options(), *PDL_OPTIONS), cache=cache))
            fold.kernels[STEP_KERNEL] = fold.modules[WHILE_FOLD_KERNEL].kernel(STEP_KERNEL)
            self.fold_kernels = fold
            self.execs = self.adopt(ExecCache(chain.stream))
        except BaseException:
            self.close()
            raise


def _decision_launch(kit, kernels, handle, n: int, every: int, stream) -> Launch:
    """cond_relu (every 1) or cond_relu_step (every K) over relu's arguments, with the handle, state and limit."""
    name, signature, args = kit.chain.op_args()[-1]
    if name != "relu":
        raise InvalidArgumentError(f"the folded WHILE body needs a chain ending in relu, got "
                                   f"{','.join(kit.chain.ops)}")
    if every == 1:
        packed = PackedArgs((*signature, "u64", "ptr", "u64"), (*args, int(handle), kit.state, n))
        kernel = kernels[WHILE_FOLD_KERNEL]
    else:
        packed = PackedArgs((*signature, "u64", "ptr", "u64", "u64"), (*args, int(handle), kit.state, every, n))
        kernel = kernels[STEP_KERNEL]
    kit._keep.append(packed)
    return Launch(kernel, packed, kit.chain.config, stream)


def body_launches(kit, handle, iterations: int, every: int = 1, pdl: bool = False) -> list[Launch]:
    """The folded body's launches: ``every`` copies of the chain, the very last relu replaced by the decision
    (cond_relu, or cond_relu_step counting ``every``). ``pdl``: the PDL-built kernels (``kit.pdl_parts()``), the
    first launch plain and every later one programmatic. Packed arguments are the chain's own (same buffers)."""
    n, k = check_every(iterations, every)
    chain = kit.chain
    stream = chain.stream
    if pdl:
        parts = kit.pdl_parts()
        ops = [Launch(parts.chain_kernels[name], launch.args, chain.config, stream)
               for (name, _sig, _args), launch in zip(chain.op_args(), chain.launches)]
        decide = _decision_launch(kit, parts.fold_kernels, handle, n, k, stream)
    else:
        ops = list(chain.launches)
        decide = _decision_launch(kit, kit.kernels, handle, n, k, stream)
    launches = [*ops * k]
    launches[-1] = decide
    if pdl:
        programmatic = replace(chain.config, programmatic=True)
        launches = [launches[0]] + [launch.with_config(programmatic) for launch in launches[1:]]
    return launches


def fill_body(kit, body, launches, pdl: bool, how: str = "capture") -> None:
    """Put ``launches`` into the empty ``body``: stream capture into it, or node by node (programmatic edges with
    ``pdl``). With ``pdl``, any driver refusal is ProgrammaticEdgesRefused, and so are plain edges where
    programmatic ones were asked for."""
    if how not in BUILD_WAYS:
        raise InvalidArgumentError(f"how must be one of {', '.join(BUILD_WAYS)}, got {how!r}")
    if not pdl:
        _fill(kit, body, launches, how, add_launch_sequence)
        return
    with refused_as(WHERE):
        _fill(kit, body, launches, how, add_programmatic_sequence)
    check_programmatic(body, len(launches) - 1)


def _fill(kit, body, launches, how: str, add_nodes) -> None:
    """Capture ``launches`` into ``body`` (the launches' own configs decide the edges) or add them with
    ``add_nodes`` (plain or programmatic edges)."""
    if how == "capture":
        require_capture_into()
        with capture_into(kit.chain.stream, body):
            for launch in launches:
                launch()
    else:
        add_nodes(body, launches, ctx=kit.device.context)


def check_programmatic(body, want: int) -> None:
    """ProgrammaticEdgesRefused unless ``body`` holds exactly ``want`` programmatic edges (a driver that kept plain
    edges would make a "PDL" row that is no such thing)."""
    got = programmatic_edge_count(body)
    if got != want:
        raise ProgrammaticEdgesRefused(WHERE, f"the body holds {got} programmatic edges of the {want} asked for")


def body_text(body, pdl: bool) -> str:
    """The body's node list; with ``pdl`` each edge's kind too."""
    if pdl:
        return describe_with_edges(body)
    from ..graphs.inspect import topology

    return topology(body).describe()
