"""The compare wing: every Python stack launching the same chain, each in its own worker process.

``registry`` (the stacks by ``--stacks`` key), ``way`` (the contract a stack fills: a Way per launch style, timed by
one shared loop), ``worker`` (what runs inside a stack's process), ``shared`` (cubins, inputs and references every
stack uses), ``driver_data`` (the device buffers the driver-level stacks share), ``records`` (rows and the result),
``session`` (the orchestration: validate, then run every stack's worker, round after round); ``stacks/<key>.py`` holds one stack each, imported only inside its worker.
"""
from __future__ import annotations

from ..._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "session": ("DEFAULT_SIZES", "DEFAULT_TIMEOUT_S", "compare", "compare_baselines", "compare_checked",
                "validate_compare"),
    "records": ("STATUSES", "CompareResult", "StackRow"),
    "registry": ("BASELINE_STACKS", "STACKS", "StackSpec", "stack_names"),
})
