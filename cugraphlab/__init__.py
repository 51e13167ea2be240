"""cugraphlab: what a CUDA kernel launch costs from Python, and what a CUDA graph saves.

Talks to the CUDA driver directly through cuda.bindings (no runtime API, no framework). Typical use::

    import cugraphlab as cgl
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1 << 20) as chain:
        print(chain.verify("graph"))          # bit-exact against NumPy
        chain.run("graph", 5000)

The package reads like a textbook, one floor on top of the other, each importing only from floors below it:
``core`` (driver objects), ``graphs`` (the CUDA graph API, one concept per module), ``experiment`` (the
add/mul/sub/relu chain built on them), ``bench`` (every timer and result record), ``report`` (text, files and
figures from result records) and ``cli``. This module re-exports the public names (``__all__``) of ``core``,
``graphs``, ``experiment`` and ``bench``, loading each subpackage on first use, so that importing a low floor never
loads a higher one.
"""
from __future__ import annotations

import importlib

from ._version import __version__

_SUBPACKAGES = ("core", "graphs", "experiment", "bench")


def _public_names() -> dict[str, str]:
    """name -> subpackage, over every subpackage's ``__all__``."""
    names: dict[str, str] = {}
    for sub in _SUBPACKAGES:
        module = importlib.import_module(f"{__name__}.{sub}")
        for name in module.__all__:
            names.setdefault(name, sub)
    return names


def __getattr__(name: str):
    if name == "__all__":
        return ["__version__", *_public_names()]
    if name in (*_SUBPACKAGES, "report", "cli"):
        return importlib.import_module(f"{__name__}.{name}")
    for sub in _SUBPACKAGES:
        module = importlib.import_module(f"{__name__}.{sub}")
        if name in module.__all__:
            value = getattr(module, name)
            globals()[name] = value  # later look-ups skip this function
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_public_names()))
