"""Streams and events.

A ``Stream`` is a CUDA stream this package made (cuStreamCreate, destroyed with the object) or one of another
library's, wrapped without owning it (``Stream.wrap``: a CuPy, PyTorch or cuda.core stream, or an int handle).
Either way it speaks the stream protocol of cuda.core and CuPy, ``__cuda_stream__() -> (0, handle)``, so it can be
handed to them: ``cupy.cuda.ExternalStream(s.handle_int)``, ``torch.cuda.ExternalStream(s.handle_int)``,
``cuda.core.Stream.from_handle(...)`` or any API taking an object with ``__cuda_stream__``.

An ``Event`` records a point in a stream; two timing events measure the device time between them:
``start.elapsed_us(end)`` (µs, like every time in this package).

Driver API: cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamWaitEvent; cuEventCreate, cuEventRecord,
cuEventSynchronize, cuEventElapsedTime, cuEventDestroy (CUDA Driver API, "Stream Management", "Event Management").
"""
from __future__ import annotations

import numbers
import warnings

from ._calls import cu, driver_module
from ._resource import Resource
from .current import current_device
from .interop import stream_handle, type_name

__all__ = ["Stream", "Event", "as_stream"]


class Stream(Resource):
    """A CUDA stream (non-blocking with respect to the legacy default stream unless asked otherwise).

    ``Stream(device)`` creates and owns one (cuStreamCreate); ``Stream.wrap(obj)`` borrows another library's.
    ``handle`` is the CUstream; ``owned`` whether ``close()`` destroys it.

    Parameters
    ----------
    device : Device
        The open Device whose context the stream is made in (it keeps that context alive until closed).
    non_blocking : bool, optional
        True (default): CU_STREAM_NON_BLOCKING, no implicit wait on the legacy default stream.

    Raises
    ------
    CugraphlabError
        ``device`` is closed.
    CudaError
        cuStreamCreate failed (the CUresult and what to do).

    See Also
    --------
    cuStreamCreate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1ga581f0c5833e21ded8b5a56594e243f4
    """

    owned = True
    wrapped: str  # a borrowed stream's: the type it came as (Stream.wrap)

    def __init__(self, device, non_blocking: bool = True):
        d = driver_module()
        self.device = device
        device.require_open()
        self._live_in(device)
        flags = d.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking else d.CUstream_flags.CU_STREAM_DEFAULT
        self.handle = cu("cuStreamCreate", flags)
        handle = self.handle
        self._own(lambda: cu("cuStreamDestroy", handle))

    @classmethod
    def wrap(cls, obj, device=None) -> "Stream":
        """A Stream for another library's stream, not owned: ``close()`` never destroys it, and the Stream keeps
        ``obj`` alive until it is closed.

        ``obj``: anything with ``__cuda_stream__`` (cuda.core's Stream, CuPy 13+ and PyTorch 2.x streams,
        cuda.bindings' CUstream), a ``torch.cuda.Stream`` (``.cuda_stream``), a ``cupy.cuda.Stream`` (``.ptr``),
        or an int CUstream handle (0 is the legacy default stream: work there serializes with every blocking
        stream of the context). A cugraphlab Stream is returned as it is.
        ``device``: the Device the stream belongs to (graphs captured on it are made for that device); default:
        the open Device whose context is current on this thread, if any (``core.current.current_device``).

        Parameters
        ----------
        obj : object
            The stream to borrow, in any of the forms above.
        device : Device, optional
            The Device the stream belongs to.

        Returns
        -------
        Stream
            Not owned (``owned`` is False); ``obj`` itself when it is already a Stream.

        Raises
        ------
        InvalidArgumentError
            ``obj`` is none of the forms above (one line naming its type).
        """
        if isinstance(obj, Stream):
            return obj
        handle = stream_handle(obj)
        if device is None:
            device = current_device()
        self = cls.__new__(cls)
        self.device = device
        self.handle = driver_module().CUstream(handle)
        self.owned = False
        self.wrapped = type_name(obj)
        keep = [obj]
        self._own(keep.clear)  # closing lets go of the other library's object; nothing is destroyed
        return self

    def __cuda_stream__(self) -> tuple[int, int]:
        """The stream protocol of cuda.core and CuPy: (version 0, the CUstream's address)."""
        return (0, int(self.handle))

    @property
    def handle_int(self) -> int:
        """The CUstream's address as an int (what other libraries' ``ExternalStream`` take)."""
        return int(self.handle)

    def synchronize(self) -> None:
        """Block until everything queued on this stream has finished (cuStreamSynchronize).

        Raises
        ------
        CudaError
            The stream's work failed (an error of an earlier asynchronous launch surfaces here).

        See Also
        --------
        cuStreamSynchronize : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g15e49dd91ec15991eb7c0a741beb7dad
        """
        cu("cuStreamSynchronize", self.handle)

    def wait(self, event: "Event") -> None:
        """Make later work on this stream wait for ``event`` (cuStreamWaitEvent); the host does not wait.

        Parameters
        ----------
        event : Event
            Recorded on any stream of the same context (or never recorded: then nothing waits).

        Raises
        ------
        CudaError
            cuStreamWaitEvent failed.

        See Also
        --------
        cuStreamWaitEvent : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html#group__CUDA__STREAM_1g6a898b652dfc6aa1d5c8d97062618b2f
        """
        cu("cuStreamWaitEvent", self.handle, event.handle, 0)

    def __repr__(self) -> str:
        state = "closed" if self.closed else hex(int(self.handle))
        borrowed = f" (wrapped {self.wrapped})" if not self.owned else ""
        return f"<Stream {state}{borrowed}>"


class Event(Resource):
    """A CUDA event; with ``timing`` it can measure device time between two records (``elapsed_us``).

    Parameters
    ----------
    device : Device
        The open Device whose context the event is made in.
    timing : bool, optional
        True (default): a timing event; False: CU_EVENT_DISABLE_TIMING, cheaper, for ordering only.

    Raises
    ------
    CugraphlabError
        ``device`` is closed.
    CudaError
        cuEventCreate failed.

    See Also
    --------
    cuEventCreate : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1g450687e75f3ff992fe01662a43d9d3db
    """

    def __init__(self, device, timing: bool = True):
        d = driver_module()
        self.device = device
        device.require_open()
        self._live_in(device)
        flags = d.CUevent_flags.CU_EVENT_DEFAULT if timing else d.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self.handle = cu("cuEventCreate", flags)
        handle = self.handle
        self._own(lambda: cu("cuEventDestroy", handle))

    def record(self, stream) -> None:
        """cuEventRecord: the event completes when the work queued on ``stream`` before it has completed.

        Parameters
        ----------
        stream : Stream or object
            A Stream, or anything ``Stream.wrap`` takes (a CuPy, PyTorch or cuda.core stream, an int handle).

        Raises
        ------
        InvalidArgumentError
            ``stream`` is no stream ``Stream.wrap`` knows.
        CudaError
            cuEventRecord failed.

        See Also
        --------
        cuEventRecord : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1g95424d3be52c4eb95d83861b70fb89d1
        """
        cu("cuEventRecord", self.handle, _stream_of(stream).handle)

    def synchronize(self) -> None:
        """cuEventSynchronize: wait on the host until the event has completed.

        Raises
        ------
        CudaError
            cuEventSynchronize failed (an error of the work before the event surfaces here).

        See Also
        --------
        cuEventSynchronize : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1g9e520d34e51af7f5375610bca4add99c
        """
        cu("cuEventSynchronize", self.handle)

    def elapsed_us(self, end: "Event") -> float:
        """Device microseconds from this event to ``end`` (cuEventElapsedTime, whose resolution is about 0.5 µs).

        Parameters
        ----------
        end : Event
            Recorded after this one; both must be complete (``end.synchronize()``).

        Returns
        -------
        float
            Microseconds on the device clock.

        Raises
        ------
        CudaError
            CUDA_ERROR_NOT_READY (not complete yet), CUDA_ERROR_INVALID_HANDLE (never recorded, or an event made
            with ``timing=False``).

        See Also
        --------
        cuEventElapsedTime : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1gdfb1178807353bbcaa9e245da497cf97
        """
        return cu("cuEventElapsedTime", self.handle, end.handle) * 1e3

    def elapsed_ms(self, end: "Event") -> float:
        """Deprecated: ``elapsed_us(end) / 1e3`` (the package speaks µs everywhere).

        Parameters
        ----------
        end : Event
            As for ``elapsed_us``.

        Returns
        -------
        float
            Milliseconds on the device clock (with a DeprecationWarning).

        Raises
        ------
        CudaError
            As for ``elapsed_us``.

        See Also
        --------
        cuEventElapsedTime : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html#group__CUDA__EVENT_1gdfb1178807353bbcaa9e245da497cf97
        """
        warnings.warn("Event.elapsed_ms is deprecated: use elapsed_us (microseconds)", DeprecationWarning,
                      stacklevel=2)
        return cu("cuEventElapsedTime", self.handle, end.handle)


def as_stream(stream):
    """``stream`` ready for a driver call: a cugraphlab Stream as it is; another library's stream or an int handle
    wrapped (``Stream.wrap``, not owned); an object of this package's own shape (with a ``handle`` and no stream
    protocol, as tests and internal stand-ins make) as it is; None stays None."""
    if stream is None or isinstance(stream, Stream):
        return stream
    protocols = ("__cuda_stream__", "cuda_stream", "ptr")
    if isinstance(stream, numbers.Integral) or any(hasattr(stream, a) for a in protocols):
        return Stream.wrap(stream)
    if hasattr(stream, "handle"):
        return stream
    return Stream.wrap(stream)  # raises the one-line error naming what it got


_stream_of = as_stream
