"""NVRTC compiles (no GPU needed), arch choice and the self-checking cache."""
from __future__ import annotations

import os

import pytest

from cugraphlab.core import cache, program
from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CompileError, InvalidArgumentError
from cugraphlab.core.program import compile_source, resolve_arch
from cugraphlab.core.sources import kernel_names, read_headers, read_source
from cugraphlab.experiment.ops import CHAIN_KERNELS

ELF_MAGIC = b"\x7fELF"


def _compile(name, arch="sm_90", kind="cubin", cache=None, source=None, options=()):
    return compile_source(source or read_source(name), name, arch=arch, kind=kind, headers=read_headers(),
                          options=options, cache=cache if cache is not None else Cache(None))


def test_every_kernel_source_is_found():
    assert set(CHAIN_KERNELS) <= set(kernel_names())
    assert "elementwise.cuh" in read_headers()


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90", "sm_100"])
def test_cubin_for_several_archs(arch):
    for name in CHAIN_KERNELS:
        c = _compile(name, arch)
        assert c.image[:4] == ELF_MAGIC, name
        assert c.kind == "cubin" and c.arch == arch
        # ptxas -v reports registers; NVRTC 13.0 can answer a repeated compile from its own cache without that
        # report (seen on the H200), and then the log has no ptxas section at all
        if "ptxas info" in c.log:
            assert c.registers.get(name, 0) > 0, c.log


def test_ptx_names_its_target_and_entry():
    c = _compile("add", "compute_90", "ptx")
    text = c.image.rstrip(b"\0").decode()
    assert ".target sm_90" in text and ".entry add(" in text
    assert c.image.endswith(b"\0")  # the driver wants a NUL-terminated PTX string


def test_resolve_arch_rules():
    newest = program.supported_archs()[-1]
    assert resolve_arch(None, (9, 0)) == ("sm_90", "cubin")
    assert resolve_arch(None, (9, 0), ptx=True) == ("compute_90", "ptx")
    assert resolve_arch("compute_80") == ("compute_80", "ptx")
    assert resolve_arch("86") == ("sm_86", "cubin")
    assert resolve_arch(None, None) == (f"sm_{newest}", "cubin")
    # a device newer than NVRTC gets PTX of the newest arch NVRTC knows
    assert resolve_arch(None, (99, 9)) == (f"compute_{newest}", "ptx")


@pytest.mark.parametrize("bad", ["sm_42", "sm_9x", "gfx90a", "sm_"])
def test_unknown_arch_is_one_clear_error(bad):
    with pytest.raises(InvalidArgumentError) as e:
        resolve_arch(bad)
    assert "sm_" in str(e.value)


def test_cache_miss_then_hit_same_image(tmp_path):
    cache = Cache(tmp_path)
    first = _compile("mul", cache=cache)
    second = _compile("mul", cache=cache)
    assert not first.cache_hit and second.cache_hit
    assert first.image == second.image and first.registers == second.registers
    assert len(list(tmp_path.glob("*.nvrtc"))) == 1
    assert not list(tmp_path.glob("*.tmp")), "atomic write left a temporary file"


def test_cache_key_covers_source_options_and_arch(tmp_path):
    cache = Cache(tmp_path)
    _compile("add", cache=cache)
    assert not _compile("add", arch="sm_80", cache=cache).cache_hit
    assert not _compile("add", cache=cache, options=("-DCGL_UNUSED=1",)).cache_hit
    assert not _compile("add", cache=cache, source=read_source("add") + "\n// changed\n").cache_hit
    assert len(list(tmp_path.glob("*.nvrtc"))) == 4


def test_corrupt_entry_is_recompiled_and_repaired(tmp_path):
    cache = Cache(tmp_path)
    good = _compile("relu", cache=cache)
    (entry,) = tmp_path.glob("*.nvrtc")
    blob = bytearray(entry.read_bytes())
    blob[-10] ^= 0xFF  # flip a payload byte: the stored hash no longer matches
    entry.write_bytes(bytes(blob))
    again = _compile("relu", cache=cache)
    assert not again.cache_hit and again.image == good.image
    assert _compile("relu", cache=cache).cache_hit  # the entry was rewritten


def test_truncated_or_garbage_entry_is_ignored(tmp_path):
    cache = Cache(tmp_path)
    _compile("sub", cache=cache)
    (entry,) = tmp_path.glob("*.nvrtc")
    entry.write_bytes(b"not json at all")
    assert not _compile("sub", cache=cache).cache_hit


def test_unwritable_cache_still_compiles(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    c = _compile("add", cache=Cache(blocker / "sub"))
    assert c.image[:4] == ELF_MAGIC and not c.cache_hit


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CUGRAPHLAB_CACHE_DIR", str(tmp_path / "x"))
    assert cache.default_cache().folder == tmp_path / "x"
    monkeypatch.setenv("CUGRAPHLAB_CACHE_DIR", "off")
    assert not cache.default_cache().enabled


def test_compile_error_carries_log_and_numbered_source():
    src = 'extern "C" __global__ void broken(float* x)\n{\n    x[0] = undefined_name;\n}\n'
    with pytest.raises(CompileError) as e:
        _compile("broken", source=src)
    err = e.value
    assert "undefined_name" in err.log and "broken.cu(3)" in err.log
    assert ">3 |     x[0] = undefined_name;" in err.numbered_source()
    assert "NVRTC_ERROR_COMPILATION" in str(err)


def test_bad_kind_is_refused():
    with pytest.raises(InvalidArgumentError):
        _compile("add", kind="sass")


def test_cache_entry_is_self_describing(tmp_path):
    cache = Cache(tmp_path)
    c = _compile("fused", cache=cache)
    payload, meta = cache.get(c.key)
    assert payload == c.image and meta["arch"] == "sm_90" and meta["name"] == "fused"
    assert os.path.basename(cache.path(c.key)).startswith(c.key)


def test_parse_registers_reads_each_entry():
    log = ("ptxas info    : Compiling entry function 'add' for 'sm_90'\nptxas info    : Function properties for add\n"
           "ptxas info    : Used 24 registers, used 0 barriers\nptxas info    : Compiling entry function 'k2' for "
           "'sm_90'\nptxas info    : Used 8 registers, used 1 barriers, 368 bytes cmem[0]\n")
    assert program.parse_registers(log) == {"add": 24, "k2": 8}
    assert program.parse_registers("") == {}
