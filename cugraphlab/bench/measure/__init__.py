"""Measuring: the chain's ``latency``, ``timeline`` and ``sweep``, and ``measure`` for a user's own work.

``measure`` (``cugraphlab.measure``) times any work eagerly, as a graph and natively. Its pieces: ``user`` (the
function), ``way`` (what a way is; the errors), ``work`` (the kinds of work and their ways), ``captured`` (the
graph ways, through the capture doctor), ``sampler`` (the rounds), ``result`` (the record),
``target`` (work named as ``file.py:function``), ``cu_kernel`` (a kernel of a ``.cu`` file), ``streams`` (the views
of one stream a callable can get), ``run`` (in this process, or in N processes one after the other).

In 0.1.0 ``cugraphlab.bench.measure`` was a function, the adaptive sampler: it is
``cugraphlab.bench.sample_adaptively`` now, and calling this package says so (``_Package.__call__``).
"""
from __future__ import annotations

from ..._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "user": ("measure",),
    "result": ("MeasureResult", "WayResult"),
    "way": ("StreamIgnoredError", "WorkRaised"),
})


import sys as _sys  # noqa: E402

_this = _sys.modules[__name__]


class _Package(type(_this)):
    """This package's type: a module that, called as 0.1.0's ``cugraphlab.bench.measure(...)`` was, says where that
    function went instead of Python's "'module' object is not callable"."""

    def __call__(self, *args, **kwargs):
        raise TypeError("cugraphlab.bench.measure is a package since 0.2.0: the adaptive sampler it was is "
                        "cugraphlab.bench.sample_adaptively; to measure your own work call cugraphlab.measure")


_this.__class__ = _Package
del _this
