"""core.link without a GPU: the build's options and cache key, the one-line gates, NVRTC to LTO-IR for real, and the
nvJitLink link with libcudadevrt.a for real where cuda.pathfinder finds the library (else skipped, saying why)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cugraphlab.core import link
from cugraphlab.core.errors import LinkError, UnsupportedError

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "kernels" / "devlaunch.cu").read_text()
HEADERS = {p.name: p.read_text() for p in (ROOT / "kernels").glob("*.cuh")}
VERSIONS = ((13, 0), (13, 0))


@pytest.fixture
def devrt(tmp_path):
    f = tmp_path / "libcudadevrt.a"
    f.write_bytes(b"!<arch>\nfake")
    return str(f)


def _plan(devrt, **kw):
    args = dict(arch="sm_90", headers=HEADERS, devrt=devrt, include_dir="/inc", versions=VERSIONS)
    args.update(kw)
    return link.link_plan(kw.pop("source", SOURCE), "devlaunch", **{k: v for k, v in args.items() if k != "source"})


def test_plan_options_lto_and_ptx(devrt):
    p = _plan(devrt)
    assert p.nvrtc_options[:3] == ("-rdc=true", "-dlto", "-I/inc")
    assert p.link_options == ("-arch=sm_90", "-lto")
    assert p.intermediate == "ltoir" and p.devrt == devrt
    q = _plan(devrt, lto=False)
    assert "-dlto" not in q.nvrtc_options and q.link_options == ("-arch=sm_90",) and q.intermediate == "ptx"


def test_cache_key_follows_every_input(devrt, tmp_path):
    base = _plan(devrt).key
    assert base == _plan(devrt).key and base.startswith("link-")
    other = tmp_path / "other.a"
    other.write_bytes(b"!<arch>\nother")
    changed = [
        _plan(devrt, source=SOURCE + "\n// edit"),
        _plan(devrt, lto=False),
        _plan(devrt, arch="sm_80"),
        _plan(devrt, versions=((13, 1), (13, 0))),
        _plan(devrt, versions=((13, 0), (13, 1))),
        _plan(devrt, options=("-DX",)),
        _plan(devrt, headers={}),
        _plan(str(other)),  # same name elsewhere, other contents
    ]
    keys = [p.key for p in changed]
    assert base not in keys and len(set(keys)) == len(keys)


def test_arch_must_be_machine_code(devrt):
    from cugraphlab.core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="sm_90"):
        _plan(devrt, arch="compute_90")


def test_marker():
    assert link.needs_device_runtime(SOURCE)
    assert not link.needs_device_runtime((ROOT / "kernels" / "add.cu").read_text())
    assert not link.needs_device_runtime((ROOT / "kernels" / "conditional.cu").read_text())


def test_arch_gate():
    assert link.require_device_launch_arch((9, 0)) == ""
    assert "not measured" in link.require_device_launch_arch((8, 0))
    # the CUDA documentation asks for unified addressing (checked by graphs.device_launch), not an arch
    assert "sm_61 is not measured here" in link.require_device_launch_arch((6, 1))


def test_missing_devrt_is_one_line(monkeypatch):
    import cuda.pathfinder

    def missing(name):
        raise RuntimeError('Failure finding "libcudadevrt.a": CUDA_HOME/CUDA_PATH not set\n  listdir(...)')

    monkeypatch.setattr(cuda.pathfinder, "find_static_lib", missing)
    monkeypatch.setattr(link, "_toolkit_roots", lambda: [])  # nor a toolkit beside nvcc or under /usr/local/cuda
    for var in ("CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(UnsupportedError) as e:
        link.find_cudadevrt()
    text = str(e.value)
    assert "\n" not in text and "nvidia-cuda-runtime" in text and "CUDA_HOME" in text


def test_missing_nvjitlink_is_one_line(monkeypatch):
    from cugraphlab.core import _door

    class Gone:
        class nvJitLinkError(Exception):
            pass

        @staticmethod
        def version():
            raise RuntimeError("Function nvJitLinkVersion not found (libnvJitLink.so.13 not found)")

    monkeypatch.setattr(_door, "_nvjitlink", Gone)
    with pytest.raises(UnsupportedError) as e:
        link.require_nvjitlink()
    assert "\n" not in str(e.value) and "nvidia-nvjitlink" in str(e.value)


@pytest.mark.nvjitlink
def test_jit_errors_name_the_result_and_the_log():
    from cugraphlab.core._calls import jit

    with pytest.raises(LinkError, match="create: ERROR_UNRECOGNIZED_OPTION"):
        jit("create", 1, ["-no-such-option"])
    h = jit("create", 2, ["-arch=sm_90", "-lto"])
    try:
        from cuda.bindings import nvjitlink

        with pytest.raises(LinkError) as e:
            jit("add_data", h, nvjitlink.InputType.LTOIR, b"not ir", 6, "bad.ltoir", inputs=("bad.ltoir",))
        assert "add_data" in str(e.value) and e.value.result.startswith("ERROR_")
        assert "bad.ltoir" in str(e.value)
        with pytest.raises(LinkError) as e:
            jit("complete", h)
        assert e.value.log  # the link log travels with the error
    finally:
        jit("destroy", h)


def _header_dir_or_skip():
    try:
        return link.devrt_include_dir("/nonexistent/lib/libcudadevrt.a")
    except UnsupportedError as e:
        pytest.skip(f"no cuda_device_runtime_api.h for this NVRTC here: {e}")


@pytest.mark.nvjitlink
def test_nvrtc_to_ltoir_for_real(tmp_path, devrt):
    from cugraphlab.core.cache import Cache

    inc = _header_dir_or_skip()
    plan = link.link_plan(SOURCE, "devlaunch", arch="sm_90", headers=HEADERS, devrt=devrt, include_dir=inc)
    cache = Cache(tmp_path / "cache")
    ir = link.compile_relocatable(SOURCE, plan, HEADERS, cache)
    assert ir.kind == "ltoir" and len(ir.image) > 1000 and not ir.cache_hit
    assert link.compile_relocatable(SOURCE, plan, HEADERS, cache).cache_hit
    ptx_plan = link.link_plan(SOURCE, "devlaunch", arch="sm_90", headers=HEADERS, devrt=devrt, include_dir=inc,
                              lto=False)
    ptx = link.compile_relocatable(SOURCE, ptx_plan, HEADERS, cache)
    assert ptx.kind == "ptx" and b"cudaGraphLaunch" in ptx.image and b".entry dl_relaunch" in ptx.image


def _devrt_or_skip():
    try:
        return link.find_cudadevrt()
    except UnsupportedError as e:
        pytest.skip(f"the nvJitLink link needs libcudadevrt.a, which is not found here: {e}")


@pytest.mark.nvjitlink
@pytest.mark.parametrize("lto", [True, False], ids=["ltoir", "ptx"])
def test_nvjitlink_link_for_real(tmp_path, lto):
    from cugraphlab.core.cache import Cache

    _devrt_or_skip()
    cache = Cache(tmp_path / "cache")
    built = link.build_relocatable(SOURCE, "devlaunch", arch="sm_90", headers=HEADERS, lto=lto, cache=cache)
    assert built.kind == "cubin" and built.image[:4] == b"\x7fELF" and not built.cache_hit
    for name in (b"dl_launch", b"dl_relaunch", b"dl_schedule", b"devlaunch"):
        assert name in built.image
    again = link.build_relocatable(SOURCE, "devlaunch", arch="sm_90", headers=HEADERS, lto=lto, cache=cache)
    assert again.cache_hit and again.image == built.image

