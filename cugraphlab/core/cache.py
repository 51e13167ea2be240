"""The on-disk cache of NVRTC results: self-checking entries, atomic writes, one folder.

Each entry is a header line (JSON holding the payload's own sha256, the compile log and register counts) followed by the
payload (cubin or PTX); an entry whose payload fails its hash reads as absent and is compiled again. Writes go to a
temporary file renamed over the target, so a reader never sees half an entry. The folder is ``$CUGRAPHLAB_CACHE_DIR``,
else ``$XDG_CACHE_HOME/cugraphlab``, else ``~/.cache/cugraphlab``; ``CUGRAPHLAB_CACHE_DIR=off`` disables it.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["Cache", "default_cache", "replace_atomically"]


def replace_atomically(path: Path, data: bytes, mode: int | None = None, *, fsync: bool = False) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``: a reader (another process
    loading the cache, the native library, a plotting step reading a record) sees the old file or the new one, never
    half of one. ``mode``: the new file's permission bits (default: mkstemp's 0600); ``fsync``: flushed to the disk
    before the rename (a result file: core.files.write_text). The temporary file is removed on any failure, which
    goes on. The package's one atomic file writer (core.files.write_text decides what a path is, then calls it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:24]}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class Cache:
    """Self-checking compile cache in one folder (None folder: disabled)."""

    def __init__(self, folder: str | os.PathLike | None):
        self.folder = Path(folder) if folder is not None else None

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def problem(self) -> str | None:
        """Why nothing can be cached in the folder (a file is there, or a folder this process cannot write), or
        None when it can be (or the cache is off). ``put`` then fails quietly and every compile runs NVRTC."""
        if self.folder is None:
            return None
        existing = self.folder
        while not existing.exists() and existing.parent != existing:
            existing = existing.parent
        if not existing.is_dir():
            return f"{existing} is a file, not a folder"
        if not os.access(existing, os.W_OK | os.X_OK):
            return f"{existing} is not writable"
        return None

    def describe(self) -> str:
        """The folder, ``off``, or the folder with why it is not used: what ``info`` and ``compile`` print."""
        if self.folder is None:
            return "off"
        why = self.problem()
        return f"{self.folder} (not usable: {why}; every kernel is compiled anew)" if why else str(self.folder)

    def path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{key}.nvrtc"

    def get(self, key: str) -> tuple[bytes, dict] | None:
        """(payload, metadata) for ``key``, or None when absent or corrupt."""
        if self.folder is None:
            return None
        try:
            blob = self.path(key).read_bytes()
        except OSError:
            return None
        head, sep, payload = blob.partition(b"\n")
        if not sep:
            return None
        try:
            meta = json.loads(head)
        except ValueError:
            return None
        if not isinstance(meta, dict) or meta.get("sha256") != hashlib.sha256(payload).hexdigest():
            return None
        return payload, meta

    def put(self, key: str, payload: bytes, meta: dict) -> bool:
        """Store atomically; False (and no exception) when the folder is not writable."""
        if self.folder is None:
            return False
        head = json.dumps({**meta, "sha256": hashlib.sha256(payload).hexdigest()}, sort_keys=True).encode()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            replace_atomically(self.path(key), head + b"\n" + payload)
        except OSError:
            return False
        return True


def default_cache() -> Cache:
    """The cache the environment asks for (see the module docstring)."""
    env = os.environ.get("CUGRAPHLAB_CACHE_DIR")
    if env is not None:
        return Cache(None if env.strip().lower() in ("", "off", "0", "none") else env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Cache(os.path.join(base, "cugraphlab"))
