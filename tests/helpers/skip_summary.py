"""The skipped tests, one line per reason with its count, instead of one line per test.

Without a GPU most of the suite's GPU tests skip for the same reason; pytest's ``-rs`` would print one
``SKIPPED [1] file:line: reason`` line each (88 of them). This hook prints, after the run, each reason once with how
many tests it skipped, most first, so that every reason stays visible. pyproject's ``addopts`` leaves ``s`` out of
``-r``; asking for it (``-rs``, ``-ra``, ``-rA``) gives pytest's own list back instead.
"""
from __future__ import annotations

from collections import Counter

__all__ = ["pytest_terminal_summary", "skip_reasons", "cut_at_word"]


def cut_at_word(text: str, limit: int) -> str:
    """``text`` whole when it fits ``limit`` characters, else cut at the last space before the limit with an
    ellipsis (never mid-word; a single word longer than the limit is cut where it must be, with the ellipsis)."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    space = head.rfind(" ")
    return (head[:space].rstrip(" ,;:") if space > 0 else head) + "…"


def skip_reasons(reports) -> Counter:
    """reason -> how many of the skipped ``reports`` it skipped."""
    counts: Counter = Counter()
    for r in reports:
        longrepr = getattr(r, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        counts[reason.removeprefix("Skipped: ")] += 1
    return counts


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    chars = getattr(config.option, "reportchars", "") or ""
    if any(c in chars for c in "saA"):  # pytest lists them itself
        return
    counts = skip_reasons(terminalreporter.stats.get("skipped", []))
    if not counts:
        return
    terminalreporter.section(f"{sum(counts.values())} skipped, by reason", sep="-")
    for reason, n in counts.most_common():
        terminalreporter.line(f"SKIPPED {n:>4}  {reason}")
