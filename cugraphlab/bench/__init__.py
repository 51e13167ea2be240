"""Benchmark helpers: statistics over timing samples."""

from .stats import STOP_REASONS, Summary, measure, median_ci_halfwidth, summarize

__all__ = [
    "STOP_REASONS",
    "Summary",
    "measure",
    "median_ci_halfwidth",
    "summarize",
]
