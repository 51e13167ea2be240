"""PDL and conditional nodes without a GPU: the kernels compile with NVRTC, launch configs and predictions are right,
the CLI parses and says "no GPU" in one line."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from cugraphlab import cli
from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CompileError, UnsupportedError
from cugraphlab.core.launch import LaunchConfig
from cugraphlab.core.program import compile_source
from cugraphlab.core.sources import read_headers, read_source
from cugraphlab.experiment.conditional import build_while_graph, predict_until
from cugraphlab.graphs.conditional import conditional_options, cuda_include_dir
from cugraphlab.graphs.pdl import PDL_OPTIONS, require_pdl

ELF_MAGIC = b"\x7fELF"
CONDITIONAL_KERNELS = ("conditional", "cond_until", "cond_if_flag")


def _compile(name, arch, kind, options=()):
    return compile_source(read_source(name), name, arch=arch, kind=kind, headers=read_headers(), options=options,
                          cache=Cache(None))


def test_conditional_source_compiles_with_the_toolkit_header():
    inc = cuda_include_dir()
    if inc is None:
        pytest.skip("no CUDA include folder that matches the NVRTC in use (pip install "
                    "'cuda-toolkit[cudart]' or set CUDA_HOME)")
    opts = conditional_options()
    assert opts == (f"-I{inc}", "-DCGL_REQUIRE_CUDART_HEADER")
    c = _compile("conditional", "sm_90", "cubin", opts)
    assert c.image[:4] == ELF_MAGIC
    if "ptxas info" in c.log:  # NVRTC 13.0 may answer a repeated compile from its own cache, with no ptxas report
        assert set(CONDITIONAL_KERNELS) <= set(c.registers), c.log
    # Without -I the source declares the builtin itself: the very same cubin.
    assert _compile("conditional", "sm_90", "cubin").image == c.image
    ptx = _compile("conditional", "compute_90", "ptx", opts).image.decode()
    assert "cudaGraphSetConditional" in ptx and ".entry conditional(" in ptx


def test_conditional_source_compiles_without_any_header():
    c = _compile("conditional", "sm_90", "cubin")
    assert c.image[:4] == ELF_MAGIC
    if "ptxas info" in c.log:  # see above
        assert set(CONDITIONAL_KERNELS) <= set(c.registers), c.log


def test_required_header_that_is_missing_fails_loudly(tmp_path):
    with pytest.raises(CompileError) as e:
        _compile("conditional", "sm_90", "cubin", (f"-I{tmp_path}", "-DCGL_REQUIRE_CUDART_HEADER"))
    assert "cuda_device_runtime_api.h not found" in e.value.log


@pytest.mark.parametrize("name", ["add", "mul", "sub", "relu", "fused", "empty"])
def test_pdl_variants_hold_griddepcontrol_for_compute_90(name):
    pdl = _compile(name, "compute_90", "ptx", PDL_OPTIONS).image.decode()
    assert "griddepcontrol.launch_dependents" in pdl and "griddepcontrol.wait" in pdl
    plain = _compile(name, "compute_90", "ptx").image.decode()
    assert "griddepcontrol" not in plain
    # Before sm_90 the instructions do not exist: the macro compiles them away.
    assert "griddepcontrol" not in _compile(name, "compute_80", "ptx", PDL_OPTIONS).image.decode()
    assert _compile(name, "sm_90", "cubin", PDL_OPTIONS).image[:4] == ELF_MAGIC


class _FakeDevice:
    def __init__(self, cc):
        self._cc, self.asked = cc, 0

    @property
    def compute_capability(self):
        self.asked += 1
        return self._cc

    @property
    def arch(self):
        return "sm_%d%d" % self.compute_capability


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (8, 9)])
def test_pdl_before_hopper_is_one_clear_error(cc):
    with pytest.raises(UnsupportedError) as e:
        require_pdl(_FakeDevice(cc))
    assert str(e.value) == ("programmatic dependent launch: needs sm_90 or newer; this GPU is sm_%d%d" % cc)


@pytest.mark.parametrize("cc", [(9, 0), (10, 0), (12, 0)])
def test_pdl_on_hopper_and_newer_passes(cc):
    device = _FakeDevice(cc)
    assert require_pdl(device) is None
    assert device.asked > 0  # the device's own compute capability was read, and it passed


def test_launch_config_carries_the_programmatic_attribute():
    from cuda.bindings import driver

    class _Stream:
        handle = driver.CUstream(0)

    cfg = LaunchConfig(4224, 256, programmatic=True).driver_config(_Stream())
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ, cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ) == (
        4224, 1, 1, 256, 1, 1)
    assert cfg.numAttrs == 1
    attr = cfg.attrs[0]
    assert attr.id == driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    assert attr.value.programmaticStreamSerializationAllowed == 1
    assert LaunchConfig(1, 32).driver_config(_Stream()).numAttrs == 0


def test_predict_until_rounds_like_float32():
    out = np.array([1.5, 0.0, 2.25, 7.0], dtype=np.float32)
    # s = 1.5 + 0 + 2.25 = 3.75 (probe 3); totals 3.75, 7.5, 11.25 -> first >= 10 after 3 iterations
    assert predict_until(out, 10.0, 3, 1000) == (3, 11.25)
    assert predict_until(out, 3.75, 3, 1000) == (1, 3.75)  # stops once total >= threshold
    assert predict_until(out, 1e9, 3, 5) == (5, 18.75)  # the iteration limit wins
    assert predict_until(np.zeros(4, np.float32), 1.0, 4, 7)[0] == 7  # a total that never grows stops at limit


def test_build_while_graph_keeps_the_shared_signature():
    params = list(inspect.signature(build_while_graph).parameters)
    assert params[:2] == ["chain", "iterations"]


def test_pdl_and_conditional_options_parse():
    a = cli.build_parser().parse_args(["pdl"])
    assert (a.size, a.iters, a.repeats, a.unroll) == (1 << 20, 5000, 5, 1)
    a = cli.build_parser().parse_args(["pdl", "--size", "1_024", "--iters", "100", "--repeats", "3"])
    assert (a.size, a.iters, a.repeats) == (1024, 100, 3)
    a = cli.build_parser().parse_args(["conditional"])
    assert (a.size, a.iterations, a.repeats, a.threshold) == (1 << 20, 1000, 10, 1000.0)  # 10: diff needs 6 samples a side
    a = cli.build_parser().parse_args(["conditional", "--iterations", "50", "--size", "4096", "--repeats", "2"])
    assert (a.size, a.iterations, a.repeats) == (4096, 50, 2)


@pytest.mark.parametrize("argv", [["pdl", "--size", "0"], ["pdl", "--iters", "x"],
                                  ["conditional", "--iterations", "0"], ["conditional", "--repeats", "-1"]])
def test_bad_pdl_and_conditional_options_exit_2(argv):
    assert cli.main(argv) == 2


@pytest.mark.parametrize("command", [["pdl", "--iters", "10"], ["conditional", "--iterations", "10"]])
def test_without_gpu_one_line_and_exit_2(command, no_gpu, capsys):
    assert cli.main(command) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no usable GPU" in lines[0]


def test_pdl_unroll_must_divide_iters(capsys):
    assert cli.main(["pdl", "--iters", "10", "--unroll", "3"]) == 2
    assert "multiple of --unroll" in capsys.readouterr().err
