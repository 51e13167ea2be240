"""kernels/cond_switch.cu compiles with NVRTC (no GPU): with the default options `cugraphlab compile` uses, with the
toolkit header when one fits, and it holds the three decision kernels."""
from __future__ import annotations

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.program import compile_source
from cugraphlab.graphs.conditional import conditional_options, cuda_include_dir
from switch_fixtures import own_kernels  # noqa: F401

KERNELS = ("cond_switch", "cond_one_hot", "cond_sign")


def _compile(kind, arch, options=()):
    from cugraphlab.core.sources import read_headers, read_source

    return compile_source(read_source("cond_switch"), "cond_switch", arch=arch, kind=kind, headers=read_headers(),
                          options=options, cache=Cache(None))


def test_compiles_with_the_default_options(own_kernels):
    c = _compile("cubin", "sm_90")
    assert c.image[:4] == b"\x7fELF"
    if "ptxas info" in c.log:  # NVRTC may answer a repeated compile from its own cache, without the report
        assert set(KERNELS) <= set(c.registers), c.log
    ptx = _compile("ptx", "compute_90").image.decode()
    for name in KERNELS:
        assert f".entry {name}(" in ptx
    assert "cudaGraphSetConditional" in ptx


def test_the_toolkit_header_gives_the_same_cubin(own_kernels):
    if cuda_include_dir() is None:
        pytest.skip("no CUDA include folder that matches the NVRTC in use")
    assert _compile("cubin", "sm_90", conditional_options()).image == _compile("cubin", "sm_90").image


def test_compile_kernel_set_takes_it_and_every_file_has_its_own_kernel(own_kernels):
    from cugraphlab.core.sources import kernel_names
    from cugraphlab.experiment.kernel_set import compile_kernel_set

    assert "cond_switch" in kernel_names()
    report = compile_kernel_set(arch="sm_90", use_cache=False)
    compiled = {c.name: c for c in report.compiled}
    assert "cond_switch" in compiled
    ptx = _compile("ptx", "compute_90").image.decode()
    assert ".entry cond_switch(" in ptx  # KernelSet.load looks up the kernel named like its file
