"""Synthetic raw Python/C pairs with known answers, as ``cugraphlab scaling`` keeps them per point (no GPU)."""
from __future__ import annotations

import numpy as np


def instantiate_pairs(c_us: float, factor: float, *, samples: int = 20, noise: float = 0.01, seed: int = 0) -> dict:
    """Two pairs per sample (P C, then C P; the next sample the other way round): C around ``c_us``, Python
    ``factor`` times the C of its own pair; each sample shares a multiplicative moment (both sides alike, as a
    launch-cost mode would), each value its own noise."""
    rng = np.random.default_rng(seed)
    out = {"python_us": [], "c_us": [], "group": [], "python_first": []}
    for i in range(samples):
        mode = 1.0 + rng.uniform(-0.2, 0.2)  # the moment: moves both sides of the sample's pairs
        for pair in range(2):
            c = c_us * mode * (1 + rng.normal(0, noise))
            out["c_us"].append(c)
            out["python_us"].append(c * factor * (1 + rng.normal(0, noise)))
            out["group"].append(i)
            out["python_first"].append((i + pair) % 2 == 0)
    return out


def launch_pairs(python_us: float, c_us: float, *, rounds: int = 4, pairs: int = 3, noise: float = 0.01,
                 seed: int = 0) -> dict:
    """``rounds`` x ``pairs`` held pairs grouped by round; Python around ``python_us``, C around ``c_us``."""
    rng = np.random.default_rng(seed)
    out = {"python_us": [], "c_us": [], "group": [], "python_first": [], "launches": 64}
    for r in range(rounds):
        for j in range(pairs):
            out["python_us"].append(python_us * (1 + rng.normal(0, noise)))
            out["c_us"].append(c_us * (1 + rng.normal(0, noise)))
            out["group"].append(r)
            out["python_first"].append((r + j) % 2 == 0)
    return out
