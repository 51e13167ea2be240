"""NumPy docstring sections on the public names of the faces core and graphs, as cuda.core and CuPy write them.

Every name below has ``Parameters`` (each parameter by name), ``Returns`` (unless it returns None) and ``Raises``
sections; where it wraps one driver call, a ``See Also`` entry links that call's section of the CUDA Driver API
(the anchor checked against the table below, taken from NVIDIA's pages). Growing the list is the way on: each name
added must pass the same checks.
"""
from __future__ import annotations

import importlib
import inspect
import re

import pytest

#: module -> names covered (a class covers itself, for its constructor, and every public method of it and its mixins)
COVERED = {
    "cugraphlab.core.device": ["Device", "init", "device_count", "driver_version", "opened"],
    "cugraphlab.core.program": ["compile_source", "nvrtc_version", "resolve_arch"],
    "cugraphlab.core.module": ["Module", "Kernel", "KernelSet"],
    "cugraphlab.core.launch": ["grid_for", "LaunchConfig", "Launch", "PackedArgs"],
    "cugraphlab.core._calls": ["cu", "driver_module", "bindings_major", "tracing", "Tracer"],
    "cugraphlab.core.stream": ["Stream", "Event"],
    "cugraphlab.core.memory": ["DeviceArray"],
    "cugraphlab.graphs.exec": ["Graph", "GraphExec", "ready_exec", "run_once", "ExecCache"],
    "cugraphlab.graphs.capture": ["capture", "capture_launches", "fork", "join"],
    "cugraphlab.graphs.capture_into": ["capture_into"],
    "cugraphlab.graphs.controls": ["instantiate_flags", "instantiate_with_params", "set_enabled", "is_enabled",
                                   "priority_range", "set_node_priority", "node_priority"],
    "cugraphlab.graphs.update": ["UpdateReport", "DirectExecUpdate", "exec_update_report", "try_exec_update",
                                 "set_kernel_params"],
    "cugraphlab.graphs.host": ["HostCallback", "host_node_params", "add_host_node", "launch_host_func"],
    "cugraphlab.graphs.child": ["add_child_graph_node", "child_graph_of", "clone_graph", "find_in_clone"],
    "cugraphlab.graphs.events": ["add_event_record_node", "add_event_wait_node", "event_of_node", "add_timed_sequence",
                                 "segment_us"],
    "cugraphlab.graphs.build": ["kernel_node_params", "add_kernel_node", "add_launch_sequence", "add_memset_node",
                                "add_copy_node"],
    "cugraphlab.bench.measure.user": ["measure"],
    "cugraphlab.bench.measure.latency": ["measure_latency"],
    "cugraphlab.bench.run": ["measure_run", "run_experiment"],
    "cugraphlab.bench.measure.sweep": ["measure_sweep", "run_sweep"],
    "cugraphlab.bench.doctor": ["measure_doctor", "run_doctor"],
    "cugraphlab.bench.measure.timeline": ["measure_timeline", "record_timeline"],
    "cugraphlab.bench.graphs.update": ["measure_update_costs"],
    "cugraphlab.bench.graphs.conditional": ["measure_while"],
    "cugraphlab.bench.graphs.nodes": ["measure_nodes"],
    "cugraphlab.bench.graphs.memnodes": ["measure_memnodes"],
    "cugraphlab.bench.graphs.switch": ["measure_switch"],
    "cugraphlab.bench.graphs.pdl": ["measure_pdl"],
    "cugraphlab.bench.graphs.devlaunch": ["measure_devlaunch"],
    "cugraphlab.bench.diff": ["diff_records"],
    "cugraphlab.bench.scaling.plan": ["make_plan"],
    "cugraphlab.bench.scaling.sweep": ["measure_scaling"],
    "cugraphlab.bench.records.kinds": ["load_record", "record_from_dict", "record_class"],
    "cugraphlab.bench.paired.harness": ["measure_paired"],
    "cugraphlab.bench.compare.session": ["compare"],
    "cugraphlab.graphs.conditional": ["require_conditional", "require_conditional_branches", "create_handle",
                                      "conditional_node_params", "add_conditional_bodies", "add_conditional_node",
                                      "add_if_else_node", "add_switch_node"],
}

#: what cannot raise (no driver call, no check): no Raises section asked
NO_RAISES = {"Device.describe", "capture.keep_alive", "Kernel", "KernelSet", "tracing", "tracing.stop", "Tracer",
             "Tracer.record", "Tracer.wrap", "ExecCache", "UpdateReport", "exec_update_report", "HostCallback",
             "PackedArgs.raw", "PackedArgs.layout"}

#: the one driver call a name wraps: its CUDA Driver API section must be linked
DRIVER_CALL = {
    "init": ["cuInit"], "device_count": ["cuDeviceGetCount"], "driver_version": ["cuDriverGetVersion"],
    "add_kernel_node": ["cuGraphAddKernelNode"], "add_memset_node": ["cuGraphAddMemsetNode"],
    "add_copy_node": ["cuGraphAddMemcpyNode"], "capture_into": ["cuStreamBeginCaptureToGraph", "cuStreamEndCapture"],
    "instantiate_with_params": ["cuGraphInstantiateWithParams"], "set_enabled": ["cuGraphNodeSetEnabled"],
    "is_enabled": ["cuGraphNodeGetEnabled"], "priority_range": ["cuCtxGetStreamPriorityRange"],
    "set_node_priority": ["cuGraphKernelNodeSetAttribute"], "node_priority": ["cuGraphKernelNodeGetAttribute"],
    "add_child_graph_node": ["cuGraphAddChildGraphNode"], "child_graph_of": ["cuGraphChildGraphNodeGetGraph"],
    "clone_graph": ["cuGraphClone"], "find_in_clone": ["cuGraphNodeFindInClone"],
    "add_event_record_node": ["cuGraphAddEventRecordNode"], "add_event_wait_node": ["cuGraphAddEventWaitNode"],
    "DirectExecUpdate": ["cuGraphExecUpdate"], "DirectExecUpdate.update": ["cuGraphExecUpdate"],
    "try_exec_update": ["cuGraphExecUpdate"], "set_kernel_params": ["cuGraphExecKernelNodeSetParams"],
    "add_host_node": ["cuGraphAddHostNode"], "launch_host_func": ["cuLaunchHostFunc"],
    "Module": ["cuModuleLoadData"], "Launch": ["cuLaunchKernel", "cuLaunchKernelEx"], "Module.kernel": ["cuModuleGetFunction"], "Kernel.attribute": ["cuFuncGetAttribute"],
    "Device.attribute": ["cuDeviceGetAttribute"], "Device.make_current": ["cuCtxSetCurrent"],
    "Device.synchronize": ["cuCtxSynchronize"], "Device.memory_info": ["cuMemGetInfo"],
    "Device.array": ["cuMemAlloc"], "Device.create_stream": ["cuStreamCreate"],
    "Device.create_event": ["cuEventCreate"], "Device.load_module": ["cuModuleLoadData"],
    "Stream": ["cuStreamCreate"], "Stream.synchronize": ["cuStreamSynchronize"], "Stream.wait": ["cuStreamWaitEvent"],
    "Event": ["cuEventCreate"], "Event.record": ["cuEventRecord"], "Event.synchronize": ["cuEventSynchronize"],
    "Event.elapsed_us": ["cuEventElapsedTime"], "Event.elapsed_ms": ["cuEventElapsedTime"],
    "DeviceArray": ["cuMemAlloc"], "DeviceArray.copy_from": ["cuMemcpyHtoDAsync"],
    "DeviceArray.to_numpy": ["cuMemcpyDtoHAsync"], "DeviceArray.fill_bits": ["cuMemsetD32Async"],
    "DeviceArray.poison": ["cuMemsetD32Async"],
    "Graph": ["cuGraphCreate"], "Graph.nodes": ["cuGraphGetNodes"], "Graph.edges": ["cuGraphGetEdges"],
    "Graph.instantiate": ["cuGraphInstantiate"], "Graph.debug_dot": ["cuGraphDebugDotPrint"],
    "GraphExec.upload": ["cuGraphUpload"], "GraphExec.launch": ["cuGraphLaunch"],
    "capture": ["cuStreamBeginCapture", "cuStreamEndCapture"],
    "capture_launches": ["cuStreamBeginCapture", "cuStreamEndCapture"],
    "create_handle": ["cuGraphConditionalHandleCreate"], "add_conditional_bodies": ["cuGraphAddNode"],
    "add_conditional_node": ["cuGraphAddNode"], "add_if_else_node": ["cuGraphAddNode"],
    "add_switch_node": ["cuGraphAddNode"],
}

#: driver function -> (section, anchor) of https://docs.nvidia.com/cuda/cuda-driver-api/ (NVIDIA's pages)
ANCHORS = {
    "cuStreamCreate": ("STREAM", "a581f0c5833e21ded8b5a56594e243f4"),
    "cuStreamSynchronize": ("STREAM", "15e49dd91ec15991eb7c0a741beb7dad"),
    "cuStreamWaitEvent": ("STREAM", "6a898b652dfc6aa1d5c8d97062618b2f"),
    "cuStreamBeginCapture": ("STREAM", "767167da0bbf07157dc20b6c258a2143"),
    "cuStreamEndCapture": ("STREAM", "03dab8b2ba76b00718955177a929970c"),
    "cuEventCreate": ("EVENT", "450687e75f3ff992fe01662a43d9d3db"),
    "cuEventRecord": ("EVENT", "95424d3be52c4eb95d83861b70fb89d1"),
    "cuEventSynchronize": ("EVENT", "9e520d34e51af7f5375610bca4add99c"),
    "cuEventElapsedTime": ("EVENT", "dfb1178807353bbcaa9e245da497cf97"),
    "cuMemAlloc": ("MEM", "b82d2a09844a58dd9e744dc31e8aa467"),
    "cuMemcpyHtoDAsync": ("MEM", "1572263fe2597d7ba4f6964597a354a3"),
    "cuMemcpyDtoHAsync": ("MEM", "56f30236c7c5247f8e061b59d3268362"),
    "cuMemsetD32Async": ("MEM", "58229da5d30f1c0cdf667b320ec2c0f5"),
    "cuMemGetInfo": ("MEM", "808f555540d0143a331cc42aa98835c0"),
    "cuDeviceGetAttribute": ("DEVICE", "9c3e1414f0ad901d3278a4d6645fc266"),
    "cuCtxSynchronize": ("CTX", "7a54725f28d34b8c6299f0c6ca579616"),
    "cuCtxSetCurrent": ("CTX", "be562ee6258b4fcc272ca6478ca2a2f7"),
    "cuModuleLoadData": ("MODULE", "04ce266ce03720f479eab76136b90c0b"),
    "cuGraphCreate": ("GRAPH", "d885f719186010727b75c3315f865fdf"),
    "cuGraphGetNodes": ("GRAPH", "fa35a8e2d2fc32f48dbd67ba27cf27e5"),
    "cuGraphGetEdges": ("GRAPH", "4e3183ca455aae2e832edd4034094082"),
    "cuGraphInstantiate": ("GRAPH", "b53b435e178cccfa37ac87285d2c3fa1"),
    "cuGraphDebugDotPrint": ("GRAPH", "0fb0c4d319477a0a98da005fcb0dacc4"),
    "cuGraphUpload": ("GRAPH", "a7eb9849e6e4604864a482b38f25be48"),
    "cuGraphLaunch": ("GRAPH", "6b2dceb3901e71a390d2bd8b0491e471"),
    "cuGraphConditionalHandleCreate": ("GRAPH", "ece6f3b9e85d0edb8484d625fe567376"),
    "cuGraphAddNode": ("GRAPH", "e01208e62f72a53367a2af903bf17d23"),
    "cuInit": ("INITIALIZE", "0a2f1517e1bd8502c7194c3a8c134bc3"),
    "cuDeviceGetCount": ("DEVICE", "52b5ce05cb8c5fb6831b2c0ff2887c74"),
    "cuDriverGetVersion": ("VERSION", "8b7a10395392e049006e61bcdc8ebe71"),
    "cuFuncGetAttribute": ("EXEC", "5e92a1b0d8d1b82cb00dcfb2de15961b"),
    "cuModuleGetFunction": ("MODULE", "a52be009b0d4045811b30c965e1cb2cf"),
    "cuLaunchKernel": ("EXEC", "b8f3dc3031b40da29d5f9a7139e52e15"),
    "cuLaunchKernelEx": ("EXEC", "b9c891eb6bb8f4089758e64c9c976db9"),
    "cuGraphAddKernelNode": ("GRAPH", "50d871e3bd06c1b835e52f2966ef366b"),
    "cuGraphAddMemsetNode": ("GRAPH", "89dc8fc3743392777c0daa2c4aca40d3"),
    "cuGraphAddMemcpyNode": ("GRAPH", "674da6ab54a677f13e0e0e8206ff5073"),
    "cuStreamBeginCaptureToGraph": ("STREAM", "ac495e0527d1dd6437f95ee482f61865"),
    "cuGraphInstantiateWithParams": ("GRAPH", "8d9541e4df43ee8440e794634a0d1af8"),
    "cuGraphNodeSetEnabled": ("GRAPH", "371b20eb0c0658731e38db7e68f12c78"),
    "cuGraphNodeGetEnabled": ("GRAPH", "428f51dceec6f6211bb9c1d710925a3d"),
    "cuCtxGetStreamPriorityRange": ("CTX", "137920ab61a71be6ce67605b9f294091"),
    "cuGraphKernelNodeSetAttribute": ("GRAPH", "d888774df6c1d0774bee49ec9442eefc"),
    "cuGraphKernelNodeGetAttribute": ("GRAPH", "9827e34c800e2f2cb4d9a6f4e186f796"),
    "cuGraphAddChildGraphNode": ("GRAPH", "de52afbcf91a8c79d4d7efbe0e3b6844"),
    "cuGraphChildGraphNodeGetGraph": ("GRAPH", "be9fc9267316b3778ef0db507917b4fd"),
    "cuGraphClone": ("GRAPH", "3603974654e463f2231c71d9b9d1517e"),
    "cuGraphNodeFindInClone": ("GRAPH", "f21f6c968e346f028737c1118bfd41c2"),
    "cuGraphAddEventRecordNode": ("GRAPH", "a7f6dcb109f4b7470ce6b067d39974a4"),
    "cuGraphAddEventWaitNode": ("GRAPH", "7306f3bcbec3406d80e110cd13405c5e"),
    "cuGraphExecUpdate": ("GRAPH", "96efefc56df46927da7297f122adfb9f"),
    "cuGraphExecKernelNodeSetParams": ("GRAPH", "d84243569e4c3d6356b9f2eea20ed48c"),
    "cuGraphAddHostNode": ("GRAPH", "0809d65e85a3c052296373954a05b1d6"),
    "cuLaunchHostFunc": ("EXEC", "ab95a78143bae7f21eebb978f91e7f3f"),
}

LINK = re.compile(r"(cu\w+) : CUDA Driver API,\s+https://docs\.nvidia\.com/cuda/cuda-driver-api/"
                  r"group__CUDA__(\w+?)\.html#group__CUDA__(\w+?)_1g([0-9a-f]{32})\b")


def covered() -> list[tuple[str, object, bool]]:
    """(qualified name, object, is a class) of every covered name."""
    out = []
    for module, names in COVERED.items():
        mod = importlib.import_module(module)
        for name in names:
            obj = getattr(mod, name)
            out.append((name, obj, inspect.isclass(obj)))
            if inspect.isclass(obj):  # its own methods and those of its mixins (not of Resource, the base)
                seen = set()
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("cugraphlab.") or klass.__module__.endswith("._resource"):
                        continue
                    for attr, value in vars(klass).items():
                        fn = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
                        if not attr.startswith("_") and inspect.isfunction(fn) and attr not in seen:
                            seen.add(attr)
                            out.append((f"{name}.{attr}", fn, False))
    return out


def sections(doc: str) -> dict[str, list[str]]:
    """NumPy sections of a cleaned docstring: title -> its lines (a title is underlined by dashes as long)."""
    lines = doc.splitlines()
    out: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and not line.startswith(" ") and nxt == "-" * len(line):
            current = out.setdefault(line, [])
        elif current is not None and not re.fullmatch(r"-+", line):
            current.append(line)
    return out


def parameters(obj, is_class: bool) -> list[str]:
    sig = inspect.signature(obj.__init__ if is_class else obj)
    names = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        names.append({p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}"}.get(p.kind, p.name))
    return names


def documented(section: list[str]) -> list[str]:
    """The names a Parameters section documents, in order ("a, b : int" documents two)."""
    out = []
    for line in section:
        if line and not line.startswith(" "):
            out += [n.strip() for n in line.split(" : ")[0].split(",")]
    return out


CASES = covered()


@pytest.mark.parametrize("name,obj,is_class", CASES, ids=[c[0] for c in CASES])
def test_the_sections(name, obj, is_class):
    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    want = parameters(obj, is_class)
    if want:
        assert "Parameters" in found, f"{name}: no Parameters section"
        assert documented(found["Parameters"]) == want, f"{name}: Parameters documents {documented(found['Parameters'])}"
    if not is_class:
        returns = inspect.signature(obj).return_annotation
        if returns not in (None, "None"):
            given = found.get("Returns", found.get("Yields", []))  # Yields: a context manager's generator
            assert any(line.strip() for line in given), f"{name}: no Returns"
    if name not in NO_RAISES:
        raises = [line for line in found.get("Raises", []) if line and not line.startswith(" ")]
        assert raises, f"{name}: no Raises section"
        assert all(re.fullmatch(r"[A-Z]\w*(Error|Exception)", r) or _package_exception(r) for r in raises), \
            f"{name}: Raises {raises}"


def _package_exception(name: str) -> bool:
    """An exception class the package exports under a name of its own (``WorkRaised``)."""
    import cugraphlab

    cls = getattr(cugraphlab, name, None)
    return isinstance(cls, type) and issubclass(cls, BaseException)


@pytest.mark.parametrize("name,obj,is_class", CASES, ids=[c[0] for c in CASES])
def test_the_driver_calls_are_linked_to_their_section(name, obj, is_class):
    doc = inspect.getdoc(obj) or ""
    links = LINK.findall(doc)
    for fn, page, group, anchor in links:
        assert fn in ANCHORS, f"{name}: {fn} has no anchor in the table"
        assert (page, group, anchor) == (ANCHORS[fn][0], ANCHORS[fn][0], ANCHORS[fn][1]), f"{name}: {fn}'s link"
    linked = [fn for fn, *_ in links]
    assert linked == DRIVER_CALL.get(name, []), f"{name}: links {linked}"
    if linked:
        assert "See Also" in sections(doc), f"{name}: the links belong in a See Also section"


def test_the_checks_can_fail():
    bare = "Do it.\n\nParameters\n----------\nx : int\n    Its x.\n"
    assert documented(sections(bare)["Parameters"]) == ["x"] and "Raises" not in sections(bare)
    assert documented(["a, b : int", "    both", "**kwargs", "    the rest"]) == ["a", "b", "**kwargs"]
    wrong = "cuGraphLaunch : CUDA Driver API,\n    https://docs.nvidia.com/cuda/cuda-driver-api/" \
            "group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g" + "0" * 32
    (fn, page, group, anchor), = LINK.findall(wrong)
    assert fn == "cuGraphLaunch" and anchor != ANCHORS[fn][1]
    assert len(CASES) >= 50
