"""Progress of a long measurement: tqdm's notebook bar inside a notebook where tqdm (and ipywidgets) is installed,
otherwise the plain stderr lines the CLI has always printed.

The measuring functions (``bench.measure.sweep.measure_sweep``, ``bench.compare.compare``, ...) only accept a callback, so the
choice of display lives here, on the output floor: ``sweep_progress()`` gives a ``progress(done, total, label)``
callback, ``line_progress()`` a ``progress(line)`` one. ``choose()`` says which display they pick and why; pass
``display="stderr"`` or ``"tqdm"`` to force one (``"tqdm"`` outside a notebook uses tqdm's text bar).
"""
from __future__ import annotations

import importlib.util
import sys
from typing import Callable, TextIO

__all__ = ["in_notebook", "tqdm_available", "choose", "sweep_progress", "line_progress", "DISPLAYS"]

DISPLAYS = ("auto", "tqdm", "stderr")


def in_notebook() -> bool:
    """True inside a Jupyter kernel (ZMQ shell: Jupyter, VS Code, Colab), False in a terminal or script."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or broken: treat as a plain terminal
        return False
    if shell is None:
        return False
    return type(shell).__name__ == "ZMQInteractiveShell" or "google.colab" in sys.modules


def tqdm_available(notebook: bool = True) -> bool:
    """tqdm importable (and, for the notebook bar, ipywidgets too, which tqdm.notebook draws with)."""
    if importlib.util.find_spec("tqdm") is None:
        return False
    return not notebook or importlib.util.find_spec("ipywidgets") is not None


def choose(display: str = "auto") -> str:
    """"tqdm-notebook", "tqdm" or "stderr": what a progress callback made now would use."""
    if display not in DISPLAYS:
        raise ValueError(f"display must be one of {DISPLAYS}, got {display!r}")
    if display == "stderr":
        return "stderr"
    notebook = in_notebook()
    if notebook and tqdm_available(notebook=True):
        return "tqdm-notebook"
    if display == "tqdm" and tqdm_available(notebook=False):
        return "tqdm"
    return "stderr"


def _bar(kind: str, total: int | None, desc: str):
    if kind == "tqdm-notebook":
        from tqdm.notebook import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=total, desc=desc, leave=True)


def sweep_progress(display: str = "auto", stream: TextIO | None = None, desc: str = "sweep") -> Callable:
    """A ``progress(done, total, label)`` callback (what ``bench.measure.sweep.measure_sweep`` calls after each point): a tqdm
    bar, or one rewritten stderr line ``[####------] done/total label`` ending with a newline at the last point."""
    kind = choose(display)
    if kind == "stderr":
        out = stream

        def progress(done: int, total: int, label: str) -> None:
            target = out or sys.stderr
            width = 30
            filled = width * done // total if total else width
            bar = "#" * filled + "-" * (width - filled)
            end = "\n" if done == total else ""
            print(f"\r[{bar}] {done}/{total} {label[:60]:<60}", end=end, file=target, flush=True)

        progress.display = kind
        return progress
    state: dict = {}

    def progress(done: int, total: int, label: str) -> None:
        bar = state.get("bar")
        if bar is None or bar.total != total:
            if bar is not None:
                bar.close()
            bar = state["bar"] = _bar(kind, total, desc)
        bar.update(done - bar.n)
        bar.set_postfix_str(label[:60], refresh=True)
        if done >= total:
            bar.close()
            state.pop("bar", None)

    progress.display = kind
    return progress


def line_progress(display: str = "auto", stream: TextIO | None = None, desc: str = "") -> Callable:
    """A ``progress(line)`` callback (what ``bench.compare.compare`` calls once per finished worker): a tqdm bar
    without a total that counts the lines and shows the last one, or the line printed to stderr."""
    kind = choose(display)
    if kind == "stderr":
        out = stream

        def progress(line: str) -> None:
            print(line, file=out or sys.stderr, flush=True)

        progress.display = kind
        return progress
    state: dict = {}

    def progress(line: str) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = _bar(kind, None, desc)
        bar.update(1)
        bar.set_postfix_str(line[:80], refresh=True)

    progress.display = kind
    return progress
