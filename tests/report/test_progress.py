"""report.progress: tqdm's notebook bar inside a notebook with tqdm, the stderr lines everywhere else."""
from __future__ import annotations

import io
import sys
import types

import pytest

from cugraphlab.report import progress as prog


class ZMQInteractiveShell:  # the class name Jupyter kernels have
    pass


@pytest.fixture
def notebook(monkeypatch):
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()
    monkeypatch.setitem(sys.modules, "IPython", fake)


def test_a_script_gets_stderr_lines(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not prog.in_notebook()
    assert prog.choose() == "stderr"
    buf = io.StringIO()
    cb = prog.sweep_progress(stream=buf)
    cb(1, 2, "graph n=1024")
    cb(2, 2, "eager n=1024")
    text = buf.getvalue()
    assert text.startswith("\r[" + "#" * 15 + "-" * 15 + "] 1/2 graph n=1024") and text.endswith("\n")
    lines = io.StringIO()
    prog.line_progress(stream=lines)("cupy: done")
    assert lines.getvalue() == "cupy: done\n"


def test_a_terminal_ipython_is_not_a_notebook(monkeypatch):
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: type("TerminalInteractiveShell", (), {})()
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert not prog.in_notebook()


def test_a_notebook_without_tqdm_gets_stderr_lines(notebook, monkeypatch):
    monkeypatch.setattr(prog, "tqdm_available", lambda notebook=True: False)
    assert prog.in_notebook() and prog.choose() == "stderr"


def test_a_notebook_with_tqdm_gets_the_notebook_bar(notebook, monkeypatch):
    monkeypatch.setattr(prog, "tqdm_available", lambda notebook=True: True)
    assert prog.choose() == "tqdm-notebook"
    made = []

    class Bar:
        def __init__(self, total, desc):
            self.total, self.n, self.closed, self.postfix = total, 0, False, ""
            made.append(self)

        def update(self, k):
            self.n += k

        def set_postfix_str(self, s, refresh=True):
            self.postfix = s

        def close(self):
            self.closed = True

    monkeypatch.setattr(prog, "_bar", lambda kind, total, desc: Bar(total, desc))
    cb = prog.sweep_progress()
    assert cb.display == "tqdm-notebook"
    cb(1, 3, "a")
    cb(3, 3, "c")
    assert made[0].n == 3 and made[0].closed and made[0].postfix == "c"
    lines = prog.line_progress()
    lines("one")
    lines("two")
    assert made[1].total is None and made[1].n == 2 and made[1].postfix == "two"


def test_forcing_stderr_and_bad_names():
    assert prog.choose("stderr") == "stderr"
    with pytest.raises(ValueError):
        prog.choose("fancy")
