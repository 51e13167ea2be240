"""core.native: C compiled at run time with the system compiler, cached on disk, loaded with ctypes."""
from __future__ import annotations

import ctypes
import shutil

import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import InvalidArgumentError, UnsupportedError
from cugraphlab.core.native import NativeCompileError, c_compiler, load_c_library

needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                              reason="no C compiler on this machine")

SOURCE = """
#include <stdint.h>
int64_t cgl_test_mix(int64_t a, int64_t b) { return a * 1000003 + (b ^ 0x5a5a); }
"""


@needs_cc
def test_compiles_calls_and_hits_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    cache = Cache(tmp_path)
    lib = load_c_library(SOURCE, "mix", cache=cache)
    assert not lib.cache_hit
    lib.cgl_test_mix.restype = ctypes.c_int64
    lib.cgl_test_mix.argtypes = (ctypes.c_int64, ctypes.c_int64)
    assert lib.cgl_test_mix(7, 11) == 7 * 1000003 + (11 ^ 0x5A5A)
    assert lib.cgl_test_mix(-3, 0) == -3 * 1000003 + 0x5A5A
    entries = sorted(p.name for p in (tmp_path / "native").iterdir())
    assert len(entries) == 2 and entries[0].endswith(".json") and entries[1].endswith(".so")
    again = load_c_library(SOURCE, "mix", cache=cache)
    assert again.cache_hit and again.path == lib.path and again.key == lib.key
    other = load_c_library(SOURCE + "\n/* another source */\n", "mix", cache=cache)
    assert not other.cache_hit and other.key != lib.key


@needs_cc
def test_flags_are_part_of_the_key(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    cache = Cache(tmp_path)
    a = load_c_library(SOURCE, "mix", cache=cache)
    b = load_c_library(SOURCE, "mix", cache=cache, flags=("-O1", "-fPIC", "-shared"))
    assert a.key != b.key and not b.cache_hit


@needs_cc
def test_a_corrupt_entry_is_built_again(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    cache = Cache(tmp_path)
    lib = load_c_library(SOURCE, "mix", cache=cache)
    so = next((tmp_path / "native").glob("*.so"))
    # a torn or tampered library fails its hash; written as a new file (os.replace), never in place: the library
    # is mapped into this process, and rewriting mapped pages would crash it at exit
    torn = so.with_name(so.name + ".torn")
    torn.write_bytes(so.read_bytes()[:-16] + b"\0" * 16)
    torn.replace(so)
    again = load_c_library(SOURCE, "mix", cache=cache)
    assert not again.cache_hit and again.key == lib.key


@needs_cc
def test_cache_off_still_loads(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    lib = load_c_library(SOURCE, "mix", cache=Cache(None))
    lib.cgl_test_mix.restype = ctypes.c_int64
    lib.cgl_test_mix.argtypes = (ctypes.c_int64, ctypes.c_int64)
    assert lib.cgl_test_mix(1, 1) == 1000003 + (1 ^ 0x5A5A) and not lib.cache_hit


@needs_cc
def test_a_compile_error_carries_the_compiler_output(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(NativeCompileError) as e:
        load_c_library("int broken( { return 0; }", "broken", cache=Cache(tmp_path))
    assert "broken" in str(e.value) and e.value.output


def test_no_compiler_is_unsupported(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "cgl-no-such-compiler")
    assert c_compiler() is None
    with pytest.raises(UnsupportedError, match="no C compiler"):
        load_c_library(SOURCE, "mix", cache=Cache(tmp_path))
    monkeypatch.delenv("CC")
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    assert c_compiler() is None
    with pytest.raises(UnsupportedError, match="none of cc, gcc, clang"):
        load_c_library(SOURCE, "mix", cache=Cache(tmp_path))


def test_bad_names_and_sources_are_refused(tmp_path):
    with pytest.raises(InvalidArgumentError):
        load_c_library(SOURCE, "../escape", cache=Cache(tmp_path))
    with pytest.raises(InvalidArgumentError):
        load_c_library("   ", "empty", cache=Cache(tmp_path))


@needs_cc
def test_cc_with_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "gcc -DCGL_EXTRA=5" if shutil.which("gcc") else "cc -DCGL_EXTRA=5")
    lib = load_c_library("int cgl_extra(void) { return CGL_EXTRA; }", "extra", cache=Cache(tmp_path))
    assert lib.cgl_extra() == 5 and "-DCGL_EXTRA=5" in lib.compiler
