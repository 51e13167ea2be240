"""Your own kernel without a GPU: compile_source's defaults and options, the short repr of a compiled program, the
arch check at load, prepare without a stream and binding later, µs events, and core's import graph."""
from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

from cugraphlab.core import program
from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.program import BASE_OPTIONS, compile_source
from interop_fixtures import dev, drv  # noqa: F401  (the interop fake's fixtures)

SAXPY = (Path(__file__).resolve().parents[2] / "examples" / "saxpy.cu").read_text()
FMA = 'extern "C" __global__ void fma_me(float* o, const float* a, const float* b, const float* c)\n' \
      "{ int i = threadIdx.x; o[i] = a[i] * b[i] + c[i]; }\n"


# --- compile ---------------------------------------------------------------------------------------------------------
def test_compile_defaults_to_the_current_devices_arch_and_cubin(drv, dev):
    drv.compute_capability = (8, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a device is current: nothing to warn about
        c = compile_source(SAXPY, "saxpy", cache=Cache(None))
    assert (c.arch, c.kind) == ("sm_86", "cubin") and c.image[:4] == b"\x7fELF"
    assert "the current device's arch" in c.arch_note


def test_without_a_context_compile_takes_the_newest_arch_and_says_so(drv):
    newest = program.supported_archs()[-1]
    with pytest.warns(UserWarning, match=r"no CUDA context is current .* newest arch NVRTC"):
        c = compile_source(SAXPY, "saxpy", cache=Cache(None))
    assert (c.arch, c.kind) == (f"sm_{newest}", "cubin")
    assert "make the Device first, or pass arch=" in c.arch_note


def test_an_arch_alone_implies_the_kind():
    assert compile_source(SAXPY, "saxpy", arch="compute_80", cache=Cache(None)).kind == "ptx"
    assert compile_source(SAXPY, "saxpy", arch="90", cache=Cache(None)).arch == "sm_90"
    with pytest.raises(InvalidArgumentError, match="kind must be"):
        compile_source(SAXPY, "saxpy", arch="sm_90", kind="fatbin")


def test_fmad_false_is_the_default_and_base_options_change_it():
    assert BASE_OPTIONS == ("--std=c++17", "--fmad=false")
    exact = compile_source(FMA, "fma_me", arch="compute_90", cache=Cache(None)).image.decode(errors="replace")
    assert "fma.rn.f32" not in exact and "mul.rn.f32" in exact and "add.rn.f32" in exact
    fast = compile_source(FMA, "fma_me", arch="compute_90", base_options=("--std=c++17",),
                          cache=Cache(None)).image.decode(errors="replace")
    assert "fma.rn.f32" in fast  # contraction on: one rounding where NumPy rounds twice
    with pytest.raises(InvalidArgumentError, match="tuple of option strings"):
        compile_source(FMA, "fma_me", arch="sm_90", base_options="--fmad=true")


def test_the_options_are_documented_where_they_are_set():
    doc = compile_source.__doc__ + program.__doc__
    for option in ("--std=c++17", "--fmad=false", "--gpu-architecture", "--ptxas-options=-v", "base_options"):
        assert option in doc, option
    assert "NumPy" in program.__doc__ and "FMA" in program.__doc__


def test_a_compiled_programs_repr_is_short():
    c = compile_source(SAXPY, "saxpy", arch="sm_90", cache=Cache(None))
    r = repr(c)
    assert r.startswith("<Compiled saxpy sm_90 cubin ") and f"{len(c.image):,} bytes" in r
    assert f"sha256:{c.sha256[:12]}" in r and len(r) < 100


# --- load ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arch,loads", [("sm_90", True), ("sm_90a", True), ("sm_86", False), ("sm_100", False),
                                        ("compute_120", True)])
def test_a_compiled_program_is_checked_against_the_device_before_loading(dev, arch, loads):
    c = compile_source(SAXPY, "saxpy", arch=arch, cache=Cache(None))  # the fake device is sm_90
    if loads:
        with dev.load_module(c) as m:
            assert m.compiled is c and m.kernel("saxpy").device is dev
    else:
        with pytest.raises(InvalidArgumentError, match=rf"saxpy was compiled to cubin for {arch}.*this device is "
                                                       "sm_90"):
            dev.load_module(c)


def test_a_later_minor_revision_loads_an_earlier_cubin(drv, dev):
    drv.compute_capability = (8, 6)
    from cugraphlab.core.device import Device

    with Device(0) as d86:
        assert d86.arch == "sm_86"
        with d86.load_module(compile_source(SAXPY, "saxpy", arch="sm_80", cache=Cache(None))) as m:
            assert (m.compiled.arch, m.compiled.kind) == ("sm_80", "cubin")  # the sm_80 cubin itself, loaded
            assert m.kernel("saxpy").device is d86


# --- launches without a stream -------------------------------------------------------------------------------------
def _saxpy(dev):
    m = dev.load_module(compile_source(SAXPY, "saxpy", arch="sm_90", cache=Cache(None)))
    return m, m.kernel("saxpy")


def test_prepare_without_a_stream_then_bind(drv, dev):
    from cugraphlab.core.launch import Launch

    m, k = _saxpy(dev)
    y, x = dev.array(256), dev.array(256)
    unbound = k.prepare(("ptr", "ptr", "ptr", "f32", "u64"), (y, x, x, 2.0, 256), (1, 256))
    assert isinstance(unbound, Launch) and not unbound.bound and unbound.call_args is None
    assert "unbound" in repr(unbound)
    with pytest.raises(InvalidArgumentError, match=r"prepared without a stream .* launch\.on\(stream\)"):
        unbound()
    with pytest.raises(InvalidArgumentError, match="no stream"):
        unbound.native()
    with dev.create_stream() as s:
        bound = unbound.on(s)
        assert bound.bound and bound.args is unbound.args and bound.stream is s
        assert bound.call_args[8] is s.handle and bound.call_args[9] == unbound.args.address
        bound()
        assert unbound.with_config(unbound.config).stream is None
    with pytest.raises(InvalidArgumentError, match="needs a stream"):
        unbound.on(None)


def test_an_unbound_launch_makes_a_kernel_node(drv, dev):
    m, k = _saxpy(dev)
    y, x = dev.array(256), dev.array(256)
    unbound = k.prepare(("ptr", "ptr", "ptr", "f32", "u64"), (y, x, x, 2.0, 256), (1, 256),
                        names=("out", "x", "y", "a", "n"))
    from cugraphlab.graphs.build import kernel_node_params  # what a graph node needs: no stream

    p = kernel_node_params(unbound)
    assert int(p.kernelParams) == unbound.args.address and (p.gridDimX, p.blockDimX) == (1, 256)


def test_prepare_checks_each_argument_against_the_kernels_device(drv, dev):
    import numpy as np

    m, k = _saxpy(dev)
    with pytest.raises(InvalidArgumentError, match=r"saxpy args\[1\] \(x\): a numpy.ndarray is host memory"):
        k.prepare(("ptr", "ptr", "ptr", "f32", "u64"), (dev.array(4), np.ones(4, np.float32), dev.array(4), 2.0, 4),
                  (1, 32), names=("out", "x", "y", "a", "n"))


def test_a_programmatic_launch_is_bound_later_too(drv, dev):
    from cugraphlab.core.launch import LaunchConfig

    m, k = _saxpy(dev)
    y = dev.array(4)
    unbound = k.prepare(("ptr", "ptr", "ptr", "f32", "u64"), (y, y, y, 1.0, 4),
                        LaunchConfig(1, 32, programmatic=True))
    assert unbound.call_args is None and unbound.api == "cuLaunchKernelEx"
    with dev.create_stream() as s:
        bound = unbound.on(s)
        assert int(bound.call_args[0].hStream) == int(s.handle)
        bound()


# --- events: µs ----------------------------------------------------------------------------------------------------
def test_events_speak_microseconds_and_elapsed_ms_is_deprecated(drv, dev):
    drv.elapsed_ms = 1.25
    with dev.create_event() as a, dev.create_event() as b:
        assert a.elapsed_us(b) == pytest.approx(1250.0)
        with pytest.warns(DeprecationWarning, match="elapsed_us"):
            assert a.elapsed_ms(b) == 1.25


# --- the import graph of core ------------------------------------------------------------------------------------
def _core_imports() -> dict[str, set[str]]:
    root = Path(__file__).resolve().parents[2] / "cugraphlab" / "core"
    mods = {p.stem: p for p in root.glob("*.py")}
    edges = {}
    for name, path in mods.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):  # module level and inside functions alike
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        edges[name] = {m for m in found if m in mods and m != name}
    return edges


def test_no_module_of_core_imports_another_that_imports_it_back_even_lazily():
    edges = _core_imports()
    assert "launch" not in edges["native_launch"]  # the circle issue 23 named

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    circles = sorted((a, b) for a in edges for b in edges[a] if a in reach(b))
    assert circles == []
