"""The stream a user's callable is given, and the stream ``measure`` times on: one CUstream, two views of it.

``measure`` times on a cugraphlab stream (its events are recorded there and its graph is captured there), while
the callable may speak another library's language: ``stream=`` picks which view of the same CUstream it gets.

    kind          the callable gets                                    made with
    "cugraphlab"  the cugraphlab Stream                                 (itself)
    "cupy"        ``cupy.cuda.ExternalStream(handle, device)``          use it as ``with stream: ...``
    "torch"       ``torch.cuda.ExternalStream(handle, device=...)``     use it as ``with torch.cuda.stream(stream)``
    "cuda.core"   ``cuda.core.Stream.from_handle(handle)``              pass it to ``cuda.core.launch(stream, ...)``
    "handle"      the CUstream's address as an int                      any API taking a raw handle

A stream object given instead of a kind (a CuPy, PyTorch or cuda.core stream, or a cugraphlab one) is used as it
is: the callable gets that object, and ``measure`` times on the same CUstream, borrowed (``core.Stream.wrap``:
never destroyed here).
"""
from __future__ import annotations

import numbers

from ...core.errors import InvalidArgumentError, UnsupportedError

__all__ = ["STREAM_KINDS", "borrow", "view_for", "kind_of"]

STREAM_KINDS = ("cugraphlab", "cupy", "torch", "cuda.core", "handle")


def kind_of(obj) -> str:
    """Which view ``obj`` is: "cugraphlab", "cupy", "torch", "cuda.core" or "handle"."""
    if isinstance(obj, numbers.Integral):
        return "handle"
    module = type(obj).__module__ or ""
    for kind in ("cupy", "torch"):
        if module.split(".")[0] == kind:
            return kind
    if module.startswith("cuda.core"):
        return "cuda.core"
    return "cugraphlab"


def borrow(obj, device):
    """``obj`` (any stream ``core.Stream.wrap`` takes) as a cugraphlab Stream of ``device``, not owned."""
    from ...core.stream import Stream

    return Stream.wrap(obj, device)


def view_for(kind: str, stream):
    """The view of cugraphlab ``stream`` that a callable asking for ``kind`` gets (table in the module docstring).
    UnsupportedError (one line, the pip command) when the library is not installed."""
    if kind not in STREAM_KINDS:
        raise InvalidArgumentError(f"stream must be one of {', '.join(STREAM_KINDS)} or a stream object, "
                                   f"got {kind!r}")
    handle = stream.handle_int
    ordinal = getattr(stream.device, "ordinal", 0)
    if kind == "cugraphlab":
        return stream
    if kind == "handle":
        return handle
    if kind == "cupy":
        cupy = _need("cupy", "pip install cupy-cuda13x (or cupy-cuda12x)")
        return cupy.cuda.ExternalStream(handle, ordinal)
    if kind == "torch":
        torch = _need("torch", "pip install torch")
        return torch.cuda.ExternalStream(handle, device=torch.device("cuda", ordinal))
    core = _cuda_core()
    return core.Stream.from_handle(handle)


def _need(name: str, how: str):
    import importlib

    try:
        return importlib.import_module(name)
    except Exception as e:
        raise UnsupportedError(f"stream={name!r} needs {name}, which does not import here "
                               f"({type(e).__name__}: {e}): {how}") from None


def _cuda_core():
    import importlib

    for name in ("cuda.core", "cuda.core.experimental"):
        try:
            mod = importlib.import_module(name)
        except Exception:
            continue
        if hasattr(getattr(mod, "Stream", None), "from_handle"):
            return mod
    raise UnsupportedError("stream='cuda.core' needs cuda.core 0.3 or newer (Stream.from_handle): "
                           "pip install cuda-core")
