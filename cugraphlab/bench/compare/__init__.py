"""The compare wing: every Python stack launching the same chain, each in its own worker process.

``registry`` (the stacks by ``--stacks`` key), ``way`` (the contract a stack fills: a Way per launch style, timed by
one shared loop), ``worker`` (what runs inside a stack's process), ``shared`` (cubins, inputs and references every
stack uses), ``driver_data`` (the device buffers the driver-level stacks share), ``records`` (rows and the result),
``measure`` (the orchestration); ``stacks/<key>.py`` holds one stack each, imported only inside its worker.
"""
from .measure import DEFAULT_SIZES, DEFAULT_TIMEOUT_S, compare, compare_baselines, validate_compare
from .records import STATUSES, CompareResult, StackRow
from .registry import BASELINE_STACKS, STACKS, StackSpec, stack_names

__all__ = ["DEFAULT_SIZES", "DEFAULT_TIMEOUT_S", "compare", "compare_baselines", "validate_compare", "STATUSES",
           "CompareResult", "StackRow", "BASELINE_STACKS", "STACKS", "StackSpec", "stack_names"]
