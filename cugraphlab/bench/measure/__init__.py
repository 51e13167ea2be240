"""Measuring: the chain's ``latency``, ``timeline`` and ``sweep``, and ``measure`` for a user's own work.

``measure`` (``cugraphlab.measure``) times any work eagerly, as a graph and natively. Its pieces: ``user`` (the
function), ``way`` (what a way is; the errors), ``work`` (the kinds of work and their ways), ``captured`` (the
graph ways, through the capture doctor), ``sampler`` (the rounds), ``result`` (the record),
``target`` (work named as ``file.py:function``), ``cu_kernel`` (a kernel of a ``.cu`` file), ``streams`` (the views
of one stream a callable can get), ``run`` (in this process, or in N processes one after the other).
"""
from __future__ import annotations

from ..._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "user": ("measure",),
    "result": ("MeasureResult", "WayResult"),
    "way": ("StreamIgnoredError", "WorkRaised"),
})
