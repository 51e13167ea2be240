"""The node lessons measured: what host nodes, child graphs, node controls and instantiation paths cost.

Rows (each keeps its raw samples in the record; lessons "host", "event", "child", "controls"):

* host: device µs per iteration of the chain's graph with and without a host node between mul and sub (Python and
  C callback), then the same while a thread spinning in pure Python holds the GIL. The launches are all enqueued
  behind a prelude of long kernels (so the host's launch rate is not what the device clock sees), the spinning
  thread starts once they are enqueued, and CUDA events around the launches give the device time.
* event: each kernel's device µs inside one graph launch, from event record nodes around every kernel.
* child: the chain flat against nested in a child graph node: host µs per cuGraphLaunch call (perf_counter_ns
  around K calls) and device µs per iteration (CUDA events around the same K launches).
* controls: host µs per call of cuGraphNodeSetEnabled beside cuGraphExecKernelNodeSetParams, cuGraphExecUpdate and
  re-instantiating (cuGraphInstantiate + cuGraphExecDestroy); device µs per iteration with mul enabled, disabled,
  replaced by an empty node, and absent; host µs of instantiate+upload in one call (cuGraphInstantiateWithParams
  with UPLOAD) against cuGraphInstantiate then cuGraphUpload; and a high-priority graph's latency (CUDA events
  around it on its stream) while low-priority kernels fill the GPU, with and without USE_NODE_PRIORITY.

Every run of every graph measured is checked bit for bit against NumPy (checks in the record).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar

from ...core._calls import driver_fn
from ...core.device import opened
from ...core.errors import InvalidArgumentError, check, positive_int
from ...core.launch import Launch, LaunchConfig, PackedArgs
from ...core.memory import validate_size
from ...experiment import nodes as lessons
from ...experiment.chain import Chain
from ...experiment.ops import OPS, compare_bits
from ...graphs.build import add_kernel_node, add_launch_sequence, kernel_node_params
from ...graphs.controls import instantiate_flags, instantiate_with_params, priority_range, set_enabled
from ...graphs.exec import Graph
from ...graphs.join import add_empty_node
from ..records.record import Record, clocks
from ..stats.summary import Summary, summarize

__all__ = ["REPEATS", "NodeRow", "NodesResult", "measure_nodes", "LESSONS", "Prelude", "busy_python_thread"]

#: Samples per row by default: one per timed loop or block of calls (a few ms each). 10 (it was 5) so that
#: ``cugraphlab diff`` has the 6 samples per side it needs; the 5 more cost about 0.3 s at the defaults
#: (estimated, docs/diff.md).
REPEATS = 10

LESSONS = lessons.LESSONS


@dataclass(kw_only=True)
class NodeRow:
    """One measured row: its lesson, what it measured, the summary (µs) and the clock key."""

    lesson: str
    label: str
    summary: Summary
    clock: str
    note: str = ""


@dataclass(kw_only=True)
class NodesResult(Record):
    KIND: ClassVar[str] = "cugraphlab.nodes"

    rows: list[NodeRow] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)  # {"lesson", "text", "ok"}
    facts: dict = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def row(self, label: str) -> NodeRow:
        for r in self.rows:
            if r.label == label:
                return r
        raise KeyError(label)

    def add(self, lesson: str, label: str, samples, clock: str, note: str = "") -> NodeRow:
        row = NodeRow(lesson=lesson, label=label, summary=summarize(samples, unit="us", clock=self.clocks[clock]),
                      clock=clock, note=note)
        self.rows.append(row)
        self.keep_samples(label, samples, "us", clock)
        return row

    def add_check(self, lesson: str, verification) -> None:
        self.checks.append({"lesson": lesson, "text": str(verification), "ok": bool(verification.ok)})

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


# --- measuring machinery --------------------------------------------------------------------------------------------
class Prelude:
    """Long kernels that keep the GPU busy while the host enqueues what is to be timed (``add`` over its own
    buffers, one float4 per thread): the device clock then sees the GPU's own pace, not the host's."""

    def __init__(self, chain, n: int = 1 << 24):
        self.chain = chain
        self.buffers = [chain.adopt(chain.device.array(n)) for _ in range(3)]
        for b in self.buffers:
            b.fill_bits(0x3F800000, chain.stream)  # 1.0f: never time on zeros
        out, a, b = self.buffers
        grid = -(-n // 4 // 256)
        self.launch = Launch(chain.kernels["add"], PackedArgs(OPS["add"].signature, (out, a, b, n)),
                             LaunchConfig(grid, 256), chain.stream)

    def fill(self, stream, count: int) -> None:
        launch = self.launch if stream is self.chain.stream else Launch(self.launch.kernel, self.launch.args,
                                                                        self.launch.config, stream)
        for _ in range(count):
            launch()


class busy_python_thread:
    """A thread spinning in pure Python (it holds the GIL but for the interpreter's switch interval)."""

    def __enter__(self):
        self._stop = False
        self.spins = 0

        def spin():
            n = 0
            while not self._stop:
                n += 1
            self.spins = n

        self._thread = threading.Thread(target=spin, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()


def _device_us_per_launch(chain, exe, iters: int, start, end, prelude: Prelude | None = None, during=None) -> float:
    """Device µs per launch of ``exe``: ``iters`` launches between two events, enqueued behind the prelude;
    ``during``: a context manager entered once everything is enqueued (the GIL-busy thread)."""
    s = chain.stream
    s.synchronize()
    if prelude is not None:
        prelude.fill(s, 40)
    start.record(s)
    fn, h, sh = exe.fn, exe.handle, s.handle
    for _ in range(iters):
        r = fn(h, sh)
        if r[0]:
            check(r, "cuGraphLaunch")
    end.record(s)
    if during is not None:
        with during:
            end.synchronize()
    else:
        end.synchronize()
    return start.elapsed_us(end) / iters


def _host_us_per_call(call: Callable[[], object], k: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(k):
        call()
    return (time.perf_counter_ns() - t0) / 1e3 / k


def _verify(result, lesson, chain, exe, label, expected=None) -> None:
    chain.randomize()
    chain.poison()
    exe.launch(chain.stream)
    chain.stream.synchronize()
    result.add_check(lesson, compare_bits(label, chain.out.to_numpy(stream=chain.stream),
                                      chain.expected() if expected is None else expected()))


# --- the lessons ----------------------------------------------------------------------------------------------------
def _measure_host(result, chain, repeats, iters, start, end, prelude, progress) -> None:
    graphs = {"no host node": lessons.chain_graph_nodes(chain)[0]}
    callbacks = {}
    for kind in lessons.CALLBACK_KINDS:
        try:
            callbacks[kind] = lessons.make_callback(kind)
        except Exception as e:  # UnsupportedError (no C compiler): the row says so
            result.facts[f"host {kind} callback"] = f"not measured: {e}"
            continue
        graphs[f"host node ({kind})"] = lessons.host_chain_graph(chain, callbacks[kind])
    execs = {}
    try:
        for name, g in graphs.items():
            execs[name] = g.instantiate()
            execs[name].upload(chain.stream)
        samples = {name: [] for name in execs}
        busy = {name: [] for name in execs}
        gil_iters = max(1, min(iters, 20))
        for _ in range(repeats):
            for name, exe in execs.items():
                samples[name].append(_device_us_per_launch(chain, exe, iters, start, end, prelude))
            for name in busy:
                busy[name].append(_device_us_per_launch(chain, execs[name], gil_iters, start, end, prelude,
                                                        during=busy_python_thread()))
        for name, exe in execs.items():
            _verify(result, "host", chain, exe, f"host: {name}")
            tramp = exe.kept[0] if exe.kept else None
            if tramp is not None:
                result.facts[f"{name} calls"] = tramp.calls
        base = samples["no host node"]
        for name, vals in samples.items():
            result.add("host", f"graph, {name}", vals, "device", f"{iters} launches per sample")
        for name, vals in busy.items():
            result.add("host", f"graph, {name}, GIL-busy thread", vals, "device",
                       f"{gil_iters} launches per sample while a Python thread spins")
        result.facts["host node gap us (median, vs no host node)"] = {
            name: summarize(v, unit="us", clock="").median - summarize(base, unit="us", clock="").median
            for name, v in samples.items() if name != "no host node"}
    finally:
        for exe in execs.values():
            exe.close()
        for g in graphs.values():
            g.close()
        for cb in callbacks.values():
            cb.close()
    if progress:
        progress("host nodes measured")


def _measure_events(result, chain, repeats, progress) -> None:
    per_op: dict[str, list[float]] = {}
    for _ in range(repeats):
        for k, v in lessons.chain_segments(chain).items():
            per_op.setdefault(k, []).append(v)
    result.add_check("event", compare_bits("event: timed graph", chain.out.to_numpy(stream=chain.stream),
                                       chain.expected()))
    for k, vals in per_op.items():
        result.add("event", f"segment {k}", vals, "device", "event record nodes around the kernel, one launch")
    check = lessons.check_events(chain)
    for c in check.checks:
        result.add_check("event", c)
    if progress:
        progress("event nodes measured")


def _measure_child(result, chain, repeats, iters, start, end, progress) -> None:
    flat = lessons.chain_graph_nodes(chain)[0]
    nested = lessons.nested_chain_graph(chain)
    execs = {}
    try:
        for name, g in (("flat", flat), ("nested", nested)):
            execs[name] = g.instantiate()
            execs[name].upload(chain.stream)
        host = {n: [] for n in execs}
        dev = {n: [] for n in execs}
        for _ in range(repeats):
            for name, exe in execs.items():
                chain.stream.synchronize()
                start.record(chain.stream)
                fn, h, s = exe.fn, exe.handle, chain.stream.handle
                host[name].append(_host_us_per_call(lambda: fn(h, s), iters))
                end.record(chain.stream)
                end.synchronize()
                dev[name].append(start.elapsed_us(end) / iters)
        for name, exe in execs.items():
            _verify(result, "child", chain, exe, f"child: {name}")
            result.add("child", f"{name} chain: host cuGraphLaunch", host[name], "host_call", f"{iters} calls")
            result.add("child", f"{name} chain: device per iteration", dev[name], "device", f"{iters} launches")
    finally:
        for exe in execs.values():
            exe.close()
        flat.close()
        nested.close()
    if progress:
        progress("child graphs measured")


def _variant_graphs(chain) -> dict[str, tuple[Graph, list]]:
    """The in-place-mul chain (its mul toggled later), with an empty node instead of mul, and without mul."""
    launches = lessons.toggle_launches(chain)
    out = {"mul enabled": lessons.toggle_chain_graph(chain)[:2]}
    g = Graph(chain.device)
    first = add_kernel_node(g, launches[0])
    join = add_empty_node(g, [first])
    add_launch_sequence(g, launches[2:], [join])
    out["empty node instead of mul"] = (g, [])
    g = Graph(chain.device)
    add_launch_sequence(g, [launches[0], *launches[2:]])
    out["no mul node"] = (g, [])
    return out


def _measure_controls(result, chain, repeats, iters, start, end, calls, prelude, progress) -> None:
    variants = _variant_graphs(chain)
    graph, nodes = variants["mul enabled"]
    mul = nodes[1]
    execs = {}
    try:
        for name, (g, _) in variants.items():
            execs[name] = g.instantiate()
            execs[name].upload(chain.stream)
        toggled = execs["mul enabled"]
        # host cost of each way to change an exec
        # params.kernelParams is the raw address of the launch's packed arguments: the launch (its PackedArgs) must
        # outlive every call below, or the driver follows pointers read from freed memory (a segfault): held here.
        mul_launch = lessons.toggle_launches(chain)[1]
        set_fn, params = driver_fn("cuGraphNodeSetEnabled"), kernel_node_params(mul_launch)
        kp_fn, up_fn = driver_fn("cuGraphExecKernelNodeSetParams"), driver_fn("cuGraphExecUpdate")
        inst_fn, destroy_fn = driver_fn("cuGraphInstantiate"), driver_fn("cuGraphExecDestroy")
        eh, gh = toggled.handle, graph.handle
        flip = [0]

        def toggle():
            flip[0] ^= 1
            return set_fn(eh, mul, flip[0])

        def reinstantiate():
            r = inst_fn(gh, 0)
            destroy_fn(r[1])

        ways = {"cuGraphNodeSetEnabled": (toggle, calls),
                "cuGraphExecKernelNodeSetParams": (lambda: kp_fn(eh, mul, params), calls),
                "cuGraphExecUpdate": (lambda: up_fn(eh, gh), calls),
                "re-instantiate": (reinstantiate, max(10, calls // 20))}
        host = {n: [] for n in ways}
        for _ in range(repeats):
            for name, (call, k) in ways.items():
                host[name].append(_host_us_per_call(call, k))
        set_enabled(toggled, mul, True)
        chain.stream.synchronize()
        for name, vals in host.items():
            result.add("controls", f"host per {name}", vals, "host_call", f"{ways[name][1]} calls per sample")
        # the device cost of each shape
        dev = {"mul enabled": [], "mul disabled": [], "empty node instead of mul": [], "no mul node": []}
        for _ in range(repeats):
            for name in dev:
                exe = toggled if name in ("mul enabled", "mul disabled") else execs[name]
                set_enabled(toggled, mul, name != "mul disabled")
                dev[name].append(_device_us_per_launch(chain, exe, iters, start, end, prelude))
        for name, enabled in (("mul enabled", True), ("mul disabled", False)):
            set_enabled(toggled, mul, enabled)
            _verify(result, "controls", chain, toggled, f"controls: {name}",
                    expected=lambda e=enabled: lessons.toggle_expected(chain, e))
        set_enabled(toggled, mul, True)
        for name in ("empty node instead of mul", "no mul node"):
            _verify(result, "controls", chain, execs[name], f"controls: {name}",
                    expected=lambda: lessons.toggle_expected(chain, False))
        for name, vals in dev.items():
            result.add("controls", f"device per iteration, {name}", vals, "device", f"{iters} launches")
    finally:
        for exe in execs.values():
            exe.close()
        for g, _ in variants.values():
            g.close()
    _measure_instantiate(result, chain, repeats, calls)
    _measure_priority(result, chain, repeats, start, end, prelude)
    if progress:
        progress("node controls measured")


def _measure_instantiate(result, chain, repeats, calls) -> None:
    """Host µs of the bare binding calls: cuGraphInstantiateWithParams(UPLOAD, hUploadStream) against
    cuGraphInstantiate then cuGraphUpload (the params struct built once, outside the timed region)."""
    from ...core._calls import driver_module

    graph = lessons.chain_graph_nodes(chain)[0]
    upload = instantiate_flags("upload")
    params = driver_module().CUDA_GRAPH_INSTANTIATE_PARAMS()
    params.flags = upload
    params.hUploadStream = chain.stream.handle
    with_params, inst_fn, up_fn = (driver_fn("cuGraphInstantiateWithParams"), driver_fn("cuGraphInstantiate"),
                                   driver_fn("cuGraphUpload"))
    destroy = driver_fn("cuGraphExecDestroy")
    gh, sh = graph.handle, chain.stream.handle
    k = max(10, calls // 20)
    one, two = [], []
    try:
        for _ in range(repeats):
            for label, out in (("one", one), ("two", two)):
                total = 0
                for _ in range(k):
                    chain.stream.synchronize()
                    t0 = time.perf_counter_ns()
                    if label == "one":
                        r = with_params(gh, params)
                    else:
                        r = inst_fn(gh, 0)
                        if r[0] == 0:
                            check(up_fn(r[1], sh), "cuGraphUpload")
                    total += time.perf_counter_ns() - t0
                    check(r, "cuGraphInstantiateWithParams" if label == "one" else "cuGraphInstantiate")
                    chain.stream.synchronize()
                    destroy(r[1])
                out.append(total / 1e3 / k)
        with instantiate_with_params(graph, upload, upload_stream=chain.stream) as exe:
            _verify(result, "controls", chain, exe, "controls: instantiated with UPLOAD")
    finally:
        graph.close()
    result.add("controls", "host instantiate+upload, one call", one, "host_api",
               "cuGraphInstantiateWithParams(UPLOAD, hUploadStream)")
    result.add("controls", "host instantiate+upload, two calls", two, "host_api",
               "cuGraphInstantiate then cuGraphUpload")


def _measure_priority(result, chain, repeats, start, end, prelude) -> None:
    least, greatest = priority_range()
    result.facts["priority range (least, greatest)"] = (least, greatest)
    filler = chain.adopt(chain.device.create_stream())
    hi = chain.adopt(chain.device.create_stream())
    graph, nodes = lessons.priority_chain_graph(chain, greatest)
    execs = {}
    try:
        execs["node priority (USE_NODE_PRIORITY)"] = instantiate_with_params(
            graph, instantiate_flags("use_node_priority"), upload_stream=chain.stream)
        execs["stream priority (flag off)"] = instantiate_with_params(graph, 0, upload_stream=chain.stream)
        lat = {n: [] for n in execs}
        for _ in range(max(repeats, 5)):
            for name, exe in execs.items():
                chain.device.synchronize()
                prelude.fill(filler, 20)
                start.record(hi)
                exe.launch(hi)
                end.record(hi)
                end.synchronize()
                lat[name].append(start.elapsed_us(end))
        chain.device.synchronize()
        for name, exe in execs.items():
            _verify(result, "controls", chain, exe, f"controls: {name}")
            result.add("controls", f"latency of the chain graph behind 20 filler kernels, {name}", lat[name],
                       "device", "events around the graph on its own stream")
    finally:
        chain.device.synchronize()
        for exe in execs.values():
            exe.close()
        graph.close()


def measure_nodes(device=0, size: int = 1 << 20, repeats: int = REPEATS, *, lessons_to_run=LESSONS, iters: int = 200,
                  calls: int = 1000, seed: int | None = None, progress=None) -> NodesResult:
    """Measure and check the node lessons ``lessons_to_run`` on the chain of ``size`` floats.

    Each lesson times its rows (device clock: CUDA events around ``iters`` graph launches; host clock:
    ``perf_counter_ns`` around ``calls`` driver calls), ``repeats`` samples each kept in the row, and checks what
    it teaches (outputs bit for bit against NumPy, a node's effect, a refusal named).

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    size : int
        Floats per buffer.
    repeats : int
        Samples per row.
    lessons_to_run : sequence of str
        Lessons among ``LESSONS`` ("host", "event", "child", "controls").
    iters : int
        Graph launches per device sample.
    calls : int
        Driver calls per host sample (re-instantiation and instantiate+upload do a twentieth of it).
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    progress : callable or None
        ``progress(line)``, called with one line after each lesson.

    Returns
    -------
    NodesResult
        The rows (µs per launch or call, with their clock and samples), the checks, the facts read on the way
        (``join``, the refused instantiate) and the environment; ``verified`` says whether every check passed.

    Raises
    ------
    InvalidArgumentError
        A size, ``repeats``, ``iters`` or ``calls`` not a positive integer, or an unknown or empty lesson list:
        before any GPU work.
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    from ..records.environment import collect

    size = validate_size(size)
    for name, v in (("repeats", repeats), ("iterations", iters), ("calls", calls)):
        positive_int(name, v)
    todo = tuple(lessons_to_run)
    unknown = [x for x in todo if x not in LESSONS]
    if unknown or not todo:
        raise InvalidArgumentError(f"lessons must be among {', '.join(LESSONS)}, got {', '.join(todo) or 'none'}")
    with opened(device) as dev:
        result = NodesResult(config={"size": size, "repeats": repeats, "iters": iters, "calls": calls,
                                     "lessons": list(todo), "seed": seed},
                             env=collect(dev), clocks=clocks("device", "host_call", "host_api"))
        with Chain(dev, n=size, seed=seed) as chain:
            result.config.update(chain=chain.describe(), grid=chain.grid, block=chain.block)
            start, end = chain.adopt(dev.create_event()), chain.adopt(dev.create_event())
            prelude = Prelude(chain)
            if "host" in todo:
                _measure_host(result, chain, repeats, iters, start, end, prelude, progress)
            if "event" in todo:
                _measure_events(result, chain, repeats, progress)
            if "child" in todo:
                _measure_child(result, chain, repeats, iters, start, end, progress)
                _check_child(result, chain)
            if "controls" in todo:
                _measure_controls(result, chain, repeats, iters, start, end, calls, prelude, progress)
                _check_refused(result, chain)
        return result


def _check_child(result: NodesResult, chain) -> None:
    """The child lesson's checks: a clone and a join (its facts kept)."""
    clone = lessons.check_clone(chain)
    for c in clone.checks:
        result.add_check("child", c)
    join = lessons.check_join(chain)
    for c in join.checks:
        result.add_check("child", c)
    result.facts.update({f"join: {k}": v for k, v in join.facts.items()})


def _check_refused(result: NodesResult, chain) -> None:
    """The controls lesson's check: a device-launch instantiate of a graph with a host node is refused, naming it."""
    refused = lessons.refused_instantiate(chain)
    result.facts["refused instantiate (device launch with a host node)"] = (
        str(refused) if refused is not None else "accepted (unexpected)")
    result.checks.append({"lesson": "controls", "ok": refused is not None and bool(refused.node_label),
                          "text": "device-launch instantiate refused, naming "
                                  f"{getattr(refused, 'node_label', None)} "
                                  f"({getattr(refused, 'result', None)})"})