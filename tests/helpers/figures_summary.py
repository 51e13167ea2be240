"""Figures a test reports, printed after the run in a section of their own, also under xdist.

A test calls ``record_property("figures", (title, text))``; the user properties travel with the test's report from
an xdist worker to the controller, whose terminal summary prints each title once with its text (tests/conftest.py
calls ``figures_summary`` from its ``pytest_terminal_summary``). tests/package/test_sizes.py reports the sizes of
the package's modules, functions and classes this way.
"""
from __future__ import annotations

__all__ = ["figures_summary", "reported_figures"]


def reported_figures(reports) -> dict[str, str]:
    """title -> text of every ("figures", (title, text)) user property of ``reports``, in their order."""
    out: dict[str, str] = {}
    for r in reports:
        for name, value in getattr(r, "user_properties", ()) or ():
            if name == "figures" and isinstance(value, (tuple, list)) and len(value) == 2:
                out.setdefault(str(value[0]), str(value[1]))
    return out


def figures_summary(terminalreporter) -> None:
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
               if getattr(r, "when", "call") == "call"]
    for title, text in reported_figures(reports).items():
        terminalreporter.section(title, sep="-")
        for line in text.splitlines():
            terminalreporter.line(line)
