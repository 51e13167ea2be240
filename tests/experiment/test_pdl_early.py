"""The PDL-early kernels without a GPU: NVRTC compiles every chain kernel with -DCGL_PDL and -DCGL_PDL_EARLY, and the
PTX holds the griddepcontrol instructions in the order the header promises (kernels/elementwise.cuh)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.program import compile_source
from cugraphlab.experiment.pdl import PDL_EARLY_OPTIONS
from cugraphlab.graphs.pdl import PDL_OPTIONS

# The sources of this checkout (an editable install elsewhere would otherwise answer with its own kernels/).
KERNELS = Path(__file__).resolve().parents[2] / "kernels"
HEADERS = {p.name: p.read_text() for p in KERNELS.glob("*.cuh")}
TOKEN = re.compile(r"griddepcontrol\.(?:wait|launch_dependents)|ld\.global[.\w]*|st\.global[.\w]*")


def _ptx(name: str, options=(), arch: str = "compute_90") -> str:
    c = compile_source((KERNELS / f"{name}.cu").read_text(), name, arch=arch, kind="ptx", headers=HEADERS,
                       options=tuple(options), cache=Cache(None))
    return c.image.decode()


def _sequence(ptx: str) -> list[str]:
    """Memory and griddepcontrol instructions in PTX text order, vector/scalar kept apart, repeats folded."""
    out: list[str] = []
    for m in TOKEN.finditer(ptx):
        t = m.group(0)
        t = t if t.startswith("griddepcontrol") else ("ld" if t.startswith("ld") else "st") + (
            ".v4" if ".v4" in t else "")
        if not out or out[-1] != t:
            out.append(t)
    return out


def _contains(seq: list[str], sub: list[str]) -> bool:
    return any(seq[i:i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))


WAIT, TRIGGER = "griddepcontrol.wait", "griddepcontrol.launch_dependents"


@pytest.mark.parametrize("name", ["add", "sub", "fused"])
def test_two_operand_kernels_load_y_before_the_wait_and_trigger_after_the_loads(name):
    seq = _sequence(_ptx(name, PDL_EARLY_OPTIONS))
    # The peeled first float4: ld y, wait, ld a (the predecessor's output), trigger, st.
    assert _contains(seq, ["ld.v4", WAIT, "ld.v4", TRIGGER, "st.v4"]), seq
    # No store anywhere before the first wait.
    assert "st" not in seq[:seq.index(WAIT)] and "st.v4" not in seq[:seq.index(WAIT)], seq


@pytest.mark.parametrize("name", ["mul", "relu"])
def test_one_operand_kernels_wait_before_their_first_load(name):
    seq = _sequence(_ptx(name, PDL_EARLY_OPTIONS))
    assert _contains(seq, [WAIT, "ld.v4", TRIGGER, "st.v4"]), seq
    first_load = min(seq.index(t) for t in ("ld", "ld.v4") if t in seq)
    assert seq.index(WAIT) < first_load, seq


@pytest.mark.parametrize("name", ["add", "mul", "sub", "relu", "fused"])
def test_the_top_wait_variant_is_unchanged_trigger_then_wait_before_any_memory(name):
    seq = _sequence(_ptx(name, PDL_OPTIONS))
    assert seq[:2] == [TRIGGER, WAIT], seq
    assert WAIT not in seq[2:], seq  # one wait, at the top
    plain = _ptx(name)
    assert "griddepcontrol" not in plain


@pytest.mark.parametrize("name", ["add", "mul", "sub", "relu", "fused", "empty"])
def test_every_early_kernel_waits_at_least_once_and_only_from_sm_90(name):
    ptx = _ptx(name, PDL_EARLY_OPTIONS)
    assert WAIT in ptx  # empty too (CGL_END waits), so completion stays transitive along the chain
    assert "griddepcontrol" not in _ptx(name, PDL_EARLY_OPTIONS, arch="compute_80")


def test_the_stamped_early_variant_compiles_with_the_same_order():
    seq = _sequence(_ptx("add", PDL_EARLY_OPTIONS + ("-DCGL_STAMP",)))
    assert _contains(seq, ["ld.v4", WAIT, "ld.v4", TRIGGER, "st.v4"]), seq


def test_early_options_select_their_own_kernel_set():
    from cugraphlab.experiment import pdl

    assert PDL_EARLY_OPTIONS == ("-DCGL_PDL_EARLY",) and PDL_EARLY_OPTIONS != PDL_OPTIONS
    seen = []

    class FakeDevice:
        def load_kernels(self, names, extra_sources, options, cache):
            seen.append(options)
            return "kernels"

    assert pdl.load_pdl_kernels(FakeDevice(), early=True) == "kernels"
    pdl.load_pdl_kernels(FakeDevice())
    assert seen == [PDL_EARLY_OPTIONS, PDL_OPTIONS]
