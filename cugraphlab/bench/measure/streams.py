"""The stream a user's callable is given, and the stream ``measure`` times on: one CUstream, two views of it.

``measure`` times on a cugraphlab stream (its events are recorded there and its graph is captured there), while
the callable may speak another library's language: ``stream=`` picks which view of the same CUstream it gets.

    kind          the callable gets                                    made with
    "cugraphlab"  the cugraphlab Stream                                 (itself)
    "cupy"        ``cupy_stream``: ``cupy.cuda.Stream.from_external``   use it as ``with stream: ...``
    "torch"       ``torch_stream``: ``torch.cuda.get_stream_from_external``  ``with torch.cuda.stream(stream)``
    "cuda.core"   ``cuda.core.Stream.from_handle(handle)``              pass it to ``cuda.core.launch(stream, ...)``
    "handle"      the CUstream's address as an int                      any API taking a raw handle

A stream object given instead of a kind (a CuPy, PyTorch or cuda.core stream, or a cugraphlab one) is used as it
is: the callable gets that object, and ``measure`` times on the same CUstream, borrowed (``core.Stream.wrap``:
never destroyed here).

CuPy 14 deprecates ``cupy.cuda.ExternalStream`` (a DeprecationWarning at every use) for
``cupy.cuda.Stream.from_external(obj)``, which takes any object speaking the ``__cuda_stream__`` protocol (a
cugraphlab Stream does); PyTorch offers ``torch.cuda.get_stream_from_external(ptr, device)`` beside its
``ExternalStream`` class. Each view uses the new call where the installed library has it and the old one otherwise
(CuPy 13, older PyTorch), so no version warns.
"""
from __future__ import annotations

import numbers

from ...core.errors import InvalidArgumentError, UnsupportedError

__all__ = ["STREAM_KINDS", "borrow", "view_for", "kind_of", "cupy_stream", "torch_stream"]

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
        return cupy_stream(stream, ordinal)
    if kind == "torch":
        return torch_stream(handle, ordinal)
    core = _cuda_core()
    return core.Stream.from_handle(handle)


class _Protocol:
    """A bare ``__cuda_stream__`` speaker for a raw handle."""

    def __init__(self, handle: int):
        self.handle = int(handle)

    def __cuda_stream__(self):
        return (0, self.handle)


def cupy_stream(stream, ordinal: int = 0):
    """A CuPy view of ``stream`` (a cugraphlab Stream, anything with ``__cuda_stream__``, or an int handle) on
    device ``ordinal``: ``cupy.cuda.Stream.from_external`` (CuPy 14+), else ``cupy.cuda.ExternalStream``. Never
    owns the stream."""
    cupy = _need("cupy", "pip install cupy-cuda13x (or cupy-cuda12x)")
    proto = _Protocol(stream) if isinstance(stream, numbers.Integral) else stream
    handle = int(proto.__cuda_stream__()[1])
    from_external = getattr(cupy.cuda.Stream, "from_external", None)
    if from_external is not None:
        with cupy.cuda.Device(ordinal):  # the view belongs to the stream's device
            try:
                return from_external(proto)
            except TypeError:  # a CuPy whose from_external takes the address itself
                return from_external(handle)
    return cupy.cuda.ExternalStream(handle, ordinal)


def torch_stream(handle: int, ordinal: int = 0):
    """A PyTorch view of the CUstream ``handle`` on device ``ordinal``: ``torch.cuda.get_stream_from_external``
    where PyTorch has it, else ``torch.cuda.ExternalStream``. Never owns the stream."""
    torch = _need("torch", "pip install torch")
    device = torch.device("cuda", ordinal)
    get = getattr(torch.cuda, "get_stream_from_external", None)
    if get is not None:
        return get(int(handle), device)
    return torch.cuda.ExternalStream(int(handle), device=device)


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
