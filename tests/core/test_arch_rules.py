"""Arch rules under whichever NVRTC is installed: NVRTC 12.9 compiles for sm_70; NVRTC 13 says sm_70 needs cu12."""
from pathlib import Path

import pytest

from cugraphlab.core import program
from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import InvalidArgumentError, UnsupportedError
from cugraphlab.core.program import compile_source, nvrtc_version, resolve_arch, supported_archs

KERNELS = Path(program.__file__).resolve().parents[2] / "kernels"
MAJOR = nvrtc_version()[0]


def test_the_installed_nvrtc_draws_the_line_at_turing_only_from_13_on():
    known = supported_archs()
    assert 75 in known and 90 in known
    assert (70 in known) == (MAJOR == 12)


@pytest.mark.parametrize("arch", ["sm_70", "compute_70", "70", "sm_60"])
def test_pre_turing_by_name(arch):
    number = int(arch.split("_")[-1])
    if MAJOR == 12:
        target, kind = resolve_arch(arch)
        assert target.endswith(str(number)) and kind == ("ptx" if arch.startswith("compute") else "cubin")
    else:
        with pytest.raises(InvalidArgumentError) as e:
            resolve_arch(arch)
        msg = str(e.value)
        assert msg.startswith(f"{arch} needs cu12: NVRTC {MAJOR}.") and "pip install 'cugraphlab[cu12]'" in msg
        assert "\n" not in msg


def test_pre_turing_gpu():
    if MAJOR == 12:
        assert resolve_arch(compute_capability=(7, 0)) == ("sm_70", "cubin")
    else:
        with pytest.raises(UnsupportedError, match=r"this GPU \(sm_70\) needs cu12"):
            resolve_arch(compute_capability=(7, 0))


def test_archs_no_nvrtc_knows_keep_the_plain_message():
    with pytest.raises(InvalidArgumentError, match="does not know arch 'sm_99'"):
        resolve_arch("sm_99")
    with pytest.raises(InvalidArgumentError, match="does not know arch 'sm_35'"):
        resolve_arch("sm_35")  # older than any NVRTC 12.9 either: cu12 would not help
    with pytest.raises(UnsupportedError, match="cannot compile for sm_35"):
        resolve_arch(compute_capability=(3, 5))


def test_turing_and_newer_are_unchanged():
    assert resolve_arch("sm_75") == ("sm_75", "cubin")
    assert resolve_arch(compute_capability=(9, 0), ptx=True) == ("compute_90", "ptx")
    assert resolve_arch()[0] == f"sm_{supported_archs()[-1]}"


def test_every_kernel_compiles_for_sm_70_under_cu12_only():
    """`cugraphlab compile --arch sm_70` in library form: the whole kernel set, cubin, with the package's options."""
    headers = {p.name: p.read_text() for p in KERNELS.glob("*.cuh")}
    names = sorted(p.stem for p in KERNELS.glob("*.cu"))
    assert "conditional" in names and "add" in names
    if MAJOR != 12:
        with pytest.raises(InvalidArgumentError, match="needs cu12"):
            resolve_arch("sm_70")
        return
    arch, kind = resolve_arch("sm_70")
    for name in names:
        c = compile_source((KERNELS / f"{name}.cu").read_text(), name, arch=arch, kind=kind, headers=headers,
                           cache=Cache(None))
        assert c.image[:4] == b"\x7fELF", name
