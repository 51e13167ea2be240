"""core.cache.replace_atomically, the package's one atomic writer of bytes (the cache and the native libraries)."""
import os
import stat

import pytest

from cugraphlab.core.cache import replace_atomically


def test_the_file_is_replaced_whole_with_the_mode_asked(tmp_path):
    path = tmp_path / "lib.so"
    path.write_bytes(b"old")
    replace_atomically(path, b"new bytes", 0o755)
    assert path.read_bytes() == b"new bytes" and stat.S_IMODE(path.stat().st_mode) == 0o755
    replace_atomically(path, b"again")
    assert path.read_bytes() == b"again" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lib.so"]


def test_a_failure_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    path = tmp_path / "entry"
    path.write_bytes(b"old")

    def refuse(src, dst):
        raise OSError("rename refused (forced by the test)")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="rename refused"):
        replace_atomically(path, b"new")
    assert path.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["entry"]
