"""Argument types shared by the commands: counts, device indices and size lists, each refused in one line."""
from __future__ import annotations

import argparse
import re

__all__ = ["positive_int_arg", "device_index_arg", "size_list_arg"]


def positive_int_arg(text: str) -> int:
    try:
        v = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {v}")
    return v


def device_index_arg(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a device index (0, 1, ...), got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"device index must be >= 0, got {v}")
    return v


def size_list_arg(text: str) -> list[int]:
    """A comma list of counts ("1048576,1024"), each an int (thousands may be written with ``_``) or ``2^K``."""
    if re.fullmatch(r"\s*\d{1,3}(,\d{3})+\s*", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is ambiguous here (a list or thousands separators?): write sizes as 1048576,1024 or "
            f"1_048_576, or repeat the option")
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected sizes separated by commas, got {text!r}")
    return [power_of_two_arg(p[2:]) if p.startswith("2^") else positive_int_arg(p) for p in parts]


def power_of_two_arg(exponent: str) -> int:
    if not exponent.isdigit() or int(exponent) > 40:
        raise argparse.ArgumentTypeError(f"expected 2^K with K in 0..40, got 2^{exponent}")
    return 1 << int(exponent)
