"""Host nodes: a CPU function that runs as a step of a graph, ordered between GPU nodes like any other node.

A host node holds a C function pointer and one ``void*`` of user data; when the graph reaches the node, a driver
thread calls ``fn(userData)`` and the node's successors wait until it returns::

    params = CUDA_HOST_NODE_PARAMS{fn = CUhostFn(address), userData = data}
    node = cuGraphAddHostNode(graph, [mul_node], 1, params)     # explicit: after mul, before sub
    cuGraphAddKernelNode(graph, [node], 1, params_of(sub))

    cuLaunchHostFunc(stream, fn, data)                          # on a stream: the same call, once; inside a
                                                                # capture it is recorded as a host node

The function must not call CUDA, and nothing keeps it alive for you: the driver holds only the address. Free the
function (or its data) while a graph or an executable that contains the node still exists and the next launch calls
into freed memory. So a ``HostCallback`` owns what the address points into (a ctypes trampoline for a Python
callable, or a loaded C library), and every graph or exec that gets the node keeps the callback's trampoline alive
(``Graph.keep_alive``; an exec inherits it at instantiate, and waits for the context before letting go).

Two kinds of callback:

* ``HostCallback.python(fn)``: a ``ctypes.CFUNCTYPE(None, c_void_p)`` trampoline calling ``fn()``. The driver thread
  must take the GIL to run it, so a busy Python thread delays every such node (bench.graphs.nodes measures by how much).
  Exceptions raised by ``fn`` cannot cross into the driver: they are kept in ``callback.errors``.
* ``HostCallback.c_counter()``: a C function compiled at run time (core.native) that adds 1 to a counter with an
  atomic add: no GIL, no Python at all on the driver thread.

Both count their calls in ``callback.calls``. The bindings' own ``cuLaunchHostFunc`` wraps the function in a one-shot
wrapper (it frees its data after the first call, cuda-python issue 790), which breaks it inside a capture:
``launch_host_func`` calls libcuda's own (core._calls.launch_host_func). CUDA Driver API, "Graph Management" and
"Execution Control".
"""
from __future__ import annotations

import ctypes
import threading
from typing import Callable

from ..core._calls import cu, driver_module, host_fn
from ..core._calls import launch_host_func as _launch_host_func
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError
from ..core.native import load_c_library

__all__ = ["HOST_FN", "HostCallback", "Trampoline", "add_host_node", "launch_host_func", "C_COUNTER_SOURCE",
           "host_node_params"]

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # void (*)(void* userData), the CUhostFn signature

# The C callback: one relaxed atomic add on the counter that userData points to.
C_COUNTER_SOURCE = r"""
#include <stdint.h>
void cgl_host_count(void *data)
{
    __atomic_fetch_add((uint64_t *)data, (uint64_t)1, __ATOMIC_RELAXED);
}
"""
C_COUNTER_NAME = "cgl_host_count"


class Trampoline:
    """What a host node's function pointer points into, and the counter its user data points to.

    Holds the ctypes trampoline (Python kind) or the loaded library (C kind); freed by the garbage collector once
    no HostCallback, Graph or GraphExec holds it.
    """

    __slots__ = ("kind", "address", "counter", "user_data", "errors", "_keep", "__weakref__")

    def __init__(self, kind: str, address: int, counter: ctypes.c_uint64, keep: tuple):
        self.kind, self.address, self.counter, self._keep = kind, int(address), counter, keep
        self.user_data = ctypes.addressof(counter)
        self.errors: list[BaseException] = []

    @property
    def calls(self) -> int:
        return int(self.counter.value)


def _python_trampoline(fn: Callable[[], object]) -> Trampoline:
    counter = ctypes.c_uint64(0)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def call(_user_data) -> None:  # runs on a driver thread, with the GIL ctypes took for it
        with lock:
            counter.value += 1
        try:
            fn()
        except BaseException as e:  # nothing may unwind into the driver
            errors.append(e)

    thunk = HOST_FN(call)
    t = Trampoline("python", ctypes.cast(thunk, ctypes.c_void_p).value or 0, counter, (thunk, call, fn))
    t.errors = errors
    return t


def _c_trampoline(lib, symbol: str) -> Trampoline:
    counter = ctypes.c_uint64(0)
    fn = getattr(lib, symbol)
    return Trampoline("c", ctypes.cast(fn, ctypes.c_void_p).value or 0, counter, (lib, fn))


class HostCallback(Resource):
    """A function the driver may call from a host node or cuLaunchHostFunc: its address, user data and owner.

    ``python(fn)`` or ``c_counter()`` make one. ``trampoline`` is what must stay alive while the driver can call it;
    graphs that get a node of it keep it themselves, so closing the callback (or dropping it) is safe once it is
    in a graph. ``calls`` counts the calls so far; ``errors`` holds what a Python ``fn`` raised.

    Parameters
    ----------
    trampoline : Trampoline
        The function's address, user data and what keeps them alive (made by the class methods).
    """

    def __init__(self, trampoline: Trampoline):
        self._ref = [trampoline]
        ref = self._ref
        self._own(ref.clear)  # drop this owner's reference; graphs holding the trampoline keep it

    @classmethod
    def python(cls, fn: Callable[[], object] | None = None) -> "HostCallback":
        """A Python callable (no arguments; default: do nothing but count) behind a ctypes trampoline.

        Parameters
        ----------
        fn : callable, optional
            Called with no arguments on a driver thread; what it raises is kept in ``errors``, not raised.

        Returns
        -------
        HostCallback
            Owned by the caller.

        Raises
        ------
        InvalidArgumentError
            ``fn`` is not callable.
        """
        if fn is not None and not callable(fn):
            raise InvalidArgumentError(f"a host callback needs a callable, got {fn!r}")
        return cls(_python_trampoline(fn or (lambda: None)))

    @classmethod
    def c_counter(cls) -> "HostCallback":
        """The C counting callback (C_COUNTER_SOURCE) compiled with the system compiler and loaded; no GIL needed.

        Returns
        -------
        HostCallback
            Owned by the caller; ``calls`` reads its counter.

        Raises
        ------
        UnsupportedError
            No C compiler is found.
        """
        return cls(_c_trampoline(load_c_library(C_COUNTER_SOURCE, C_COUNTER_NAME), C_COUNTER_NAME))

    @classmethod
    def c_function(cls, lib, symbol: str) -> "HostCallback":
        """A ``void symbol(void*)`` of an already loaded ctypes library; its user data is a uint64 counter.

        Parameters
        ----------
        lib : ctypes.CDLL
            The loaded library.
        symbol : str
            The function's name in it.

        Returns
        -------
        HostCallback
            Owned by the caller.

        Raises
        ------
        AttributeError
            ``lib`` has no such symbol.
        """
        return cls(_c_trampoline(lib, symbol))

    @property
    def trampoline(self) -> Trampoline:
        self.require_open()
        return self._ref[0]

    @property
    def kind(self) -> str:
        return self.trampoline.kind

    @property
    def address(self) -> int:
        return self.trampoline.address

    @property
    def user_data(self) -> int:
        return self.trampoline.user_data

    @property
    def calls(self) -> int:
        return self.trampoline.calls

    @property
    def errors(self) -> list[BaseException]:
        return self.trampoline.errors

    def __repr__(self) -> str:
        if self.closed:
            return "<HostCallback closed>"
        return f"<HostCallback {self.kind} fn={self.address:#x} calls={self.calls}>"


def host_node_params(callback: HostCallback):
    """A CUDA_HOST_NODE_PARAMS for ``callback``: fn = CUhostFn(address), userData = its counter's address.

    Parameters
    ----------
    callback : HostCallback
        Open.

    Returns
    -------
    CUDA_HOST_NODE_PARAMS
        For cuGraphAddHostNode or cuGraphExecHostNodeSetParams; the callback must outlive every use.

    Raises
    ------
    CugraphlabError
        ``callback`` is closed.
    """
    p = driver_module().CUDA_HOST_NODE_PARAMS()
    p.fn = host_fn(callback.address)
    p.userData = callback.user_data
    return p


def _owner(graph):
    if not hasattr(graph, "keep_alive"):
        raise InvalidArgumentError("a host node needs an owner that keeps its callback alive: pass a Graph "
                                   "(graphs.exec.Graph), not a raw graph handle")
    return graph


def add_host_node(graph, callback: HostCallback, deps=()):
    """Add a host node calling ``callback`` after ``deps`` (cuGraphAddHostNode); returns the node.

    Parameters
    ----------
    graph : Graph
        From now on it keeps the callback's trampoline alive (and hands it to every exec made from it).
    callback : HostCallback
        Open.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    InvalidArgumentError
        ``graph`` is a raw handle, which cannot keep the callback alive.
    CugraphlabError
        ``callback`` is closed.
    CudaError
        cuGraphAddHostNode failed.

    See Also
    --------
    cuGraphAddHostNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g0809d65e85a3c052296373954a05b1d6
    """
    owner = _owner(graph)
    trampoline = callback.trampoline
    deps = list(deps)
    node = cu("cuGraphAddHostNode", owner.handle, deps or None, len(deps), host_node_params(callback))
    owner.keep_alive(trampoline)
    return node


def launch_host_func(stream, callback: HostCallback, owner=None) -> None:
    """Enqueue ``callback`` on ``stream`` (cuLaunchHostFunc, libcuda's own: see the module docstring).

    Inside a capture it becomes a host node of the captured graph: pass ``owner=cap`` (the ``graphs.capture``
    object), whose graph then keeps the callback alive; a capture without an owner is refused. Outside a capture
    the call runs once: keep ``callback`` open until the stream has run it (``owner`` may be any object with
    ``keep_alive``).

    Parameters
    ----------
    stream : Stream
        Where the call is enqueued.
    callback : HostCallback
        Open.
    owner : object, optional
        Keeps the callback alive (``keep_alive``): the capture object inside a capture.

    Raises
    ------
    InvalidArgumentError
        A capturing ``stream`` without an ``owner``.
    UnsupportedError
        libcuda.so.1 cannot be opened through ctypes.
    CudaError
        cuLaunchHostFunc failed.

    See Also
    --------
    cuLaunchHostFunc : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html#group__CUDA__EXEC_1gab95a78143bae7f21eebb978f91e7f3f
    """
    trampoline = callback.trampoline
    if owner is None and _is_capturing(stream):
        raise InvalidArgumentError("cuLaunchHostFunc inside a capture makes a host node: pass owner=<the capture> "
                                   "so that the captured graph keeps the callback alive")
    if owner is not None:
        owner.keep_alive(trampoline)
    _launch_host_func(stream.handle, trampoline.address, trampoline.user_data)


def _is_capturing(stream) -> bool:
    status = cu("cuStreamIsCapturing", stream.handle)
    return int(status) != int(driver_module().CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)
