"""Figures, drawn from plain records (so a JSON file from a GPU machine can be plotted anywhere).

One matplotlib loader (``pyplot``: the Agg backend, imported only when a figure is asked for, so the measuring side
never needs matplotlib) and one error (``PlotUnavailableError``, a bad-input error: the CLI says it in one line and
exits 2). ``save`` writes ``STEM.png`` (150 dpi) and ``STEM.svg`` and returns both paths. One module per command
family: ``measure`` (timeline, gaps, sweep), ``compare``, ``scale``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.errors import InvalidArgumentError

__all__ = ["PlotUnavailableError", "pyplot", "save", "matplotlib_missing", "DPI"]

DPI = 150


class PlotUnavailableError(InvalidArgumentError):
    """matplotlib is not installed, so nothing can be plotted."""


def matplotlib_missing() -> bool:
    """True where matplotlib cannot be imported (checked before a measurement that would end in a plot)."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is None


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (headless by design: results are plotted on CI boxes and GPU nodes)."""
    try:
        import matplotlib
    except ImportError as exc:
        raise PlotUnavailableError("plotting needs matplotlib: pip install matplotlib (or leave out the plot option)") \
            from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, out: str | Path) -> list[Path]:
    """Write ``fig`` to ``out``.png and ``out``.svg (appended, so stems with dots work), close it, return the paths.
    A stem that names a folder (``plots/``) is refused (``core.files.stem_path``: InvalidArgumentError)."""
    from ...core.files import make_parents, stem_path

    plt = pyplot()
    try:
        out = stem_path(out)
    except InvalidArgumentError:
        plt.close(fig)
        raise
    paths = [out.with_name(out.name + ".png"), out.with_name(out.name + ".svg")]
    for path in paths:
        make_parents(path)
    try:
        fig.savefig(paths[0], dpi=DPI, bbox_inches="tight")
        fig.savefig(paths[1], bbox_inches="tight")
    finally:
        plt.close(fig)
    return paths
