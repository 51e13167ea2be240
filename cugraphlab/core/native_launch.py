"""A prepared launch whose Python call lands directly in a few lines of C: cuLaunchKernel with no binding between.

Why: a launch from Python costs the driver's own work (about 3.5 µs on an H200, what a C loop pays) plus what Python
and the binding add. cuda.bindings' ``cuLaunchKernel`` converts its eleven arguments at every call (about 0.7 µs
even with the tuple built once); ctypes costs twice that. A ``NativeLaunch`` does the conversion once: every
argument of the call is stored in a C struct, and ``fire()`` is a CPython builtin function (``METH_NOARGS``) whose C
body is one ``cuLaunchKernel`` through a function pointer. What is left is the interpreter's call of a builtin
(tens of ns).

How it is built, in order (nothing here needs a CUDA or Python header, or ``-lcuda``):

    lib = load_c_library(NATIVE_LAUNCH_SOURCE, "native_launch")   # core.native: cc -O2 -shared, cached
    lib.cgl_native_set_api(&api)        # Py_IncRef, PyCapsule_GetPointer, ... taken from ctypes.pythonapi
    state = cgl_native_launch{cuLaunchKernel's address (libcuda.so.1's export), CUfunction, grid, block,
                              shared bytes, CUstream, kernelParams (the Launch's PackedArgs), result=None, raiser}
    capsule = PyCapsule_New(&state, NULL, cgl_native_capsule_free)   # context: a tuple keeping state & co alive
    fire = PyCFunction_NewEx(&PyMethodDef{"fire", cgl_native_fire, METH_NOARGS}, capsule, module name)

    fire()                              # cgl_native_fire(capsule, NULL):
                                        #   s = PyCapsule_GetPointer(capsule); r = cuLaunchKernel(s->...)
                                        #   r == 0: Py_IncRef(None); return None
                                        #   else:   return raiser(r)  -> the typed CudaError (core.errors)

``NativeGraphLaunch`` is the same for ``cuGraphLaunch(exec, stream)`` (CUDA Driver API, "Graph Management").
The plumbing (the Python C-API table, the capsule, the PyMethodDef) is ``core.native_builtin``'s, shared with the
exec_update study's native update (benchmarks/studies/exec_update/native_update.py: a prepared cuGraphExecUpdate /
cuGraphExecKernelNodeSetParams).

Lifetime: the builtin function holds the capsule, the capsule (through its destructor) holds the C struct, the
PyMethodDef, the packed argument buffers and the raiser, so calling ``fire`` never touches freed host memory.
``close()`` (and the garbage collector, for a NativeLaunch dropped without it) marks the struct closed: a later
``fire()`` raises ``CugraphlabError`` instead of launching. Keep the NativeLaunch while you call its ``fire``; it
keeps the Launch (and through it the device buffers) alive. The driver handles (function, stream, graph exec) stay
owned by their Device, as for ``Launch`` itself: close the NativeLaunch before them.

What it does not do: programmatic launches (they need cuLaunchKernelEx), tracing (``--trace`` sees no call: the
binding is not involved), and, by default, releasing the GIL (``release_gil=True`` does, around the driver call,
as cuda.bindings does: other Python threads run during the launch, at the price of PyEval_SaveThread and
PyEval_RestoreThread per call). CPython only (3.10+), and it needs a C compiler at run time (UnsupportedError, one
line, without one).
"""
from __future__ import annotations

import ctypes
import functools
from typing import Any

from .errors import InvalidArgumentError, UnsupportedError
from .native_builtin import (
    CLOSED_STATUS,
    NATIVE_C_PRELUDE,
    BuiltinCall,
    libcuda_entry,
    make_builtin,
    raise_native_status,
)

__all__ = ["NativeLaunch", "NativeGraphLaunch", "NATIVE_LAUNCH_SOURCE", "native_launch_library",
           "launch_kernel_entry", "graph_launch_entry", "raise_launch_status", "CLOSED_STATUS"]

_ABI = 3

#: The C side. Driver and Python types are declared here; every entry point arrives as a function pointer.
NATIVE_LAUNCH_SOURCE = r"""
/* cugraphlab native launch: one prepared cuLaunchKernel / cuGraphLaunch behind a CPython METH_NOARGS builtin. */
""" + NATIVE_C_PRELUDE + r"""
typedef CUresult (*cgl_launch_kernel_fn)(void *f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                         unsigned int blockDimZ, unsigned int sharedMemBytes, void *hStream,
                                         void **kernelParams, void **extra);
typedef CUresult (*cgl_graph_launch_fn)(void *hGraphExec, void *hStream);

/* One prepared launch. Field order and types mirror _State in core/native_launch.py (checked field by field). */
typedef struct {
    void *entry;          /* cuLaunchKernel or cuGraphLaunch */
    void *function;       /* CUfunction (kernel) or CUgraphExec (graph) */
    void *stream;         /* CUstream */
    void **params;        /* kernelParams: void*[] of pointers to the argument slots */
    PyObject *result;     /* borrowed (kept by the capsule's context): returned, as a new reference, on success */
    PyObject *raiser;     /* borrowed: raiser(status) raises the typed error of a failed launch */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared_bytes;
    int32_t release_gil;  /* nonzero: PyEval_SaveThread / RestoreThread around the driver call */
    int32_t open;         /* zero once closed: fire() raises instead of launching */
    int32_t status;       /* the last status that was not CUDA_SUCCESS (-1: fired while closed) */
    int64_t failures;     /* calls that did not return CUDA_SUCCESS */
} cgl_native_launch;

int cgl_native_abi(void) { return 3; }
size_t cgl_native_api_sizeof(void) { return sizeof(cgl_py_api); }

#define CGL_F(f) offsetof(cgl_native_launch, f)
/* The struct's size, then the offset of every field, in _State's order (core.native_library.ctypes_layout). */
static const size_t cgl_layout[] = {
    sizeof(cgl_native_launch), CGL_F(entry), CGL_F(function), CGL_F(stream), CGL_F(params), CGL_F(result),
    CGL_F(raiser), CGL_F(grid), CGL_F(block), CGL_F(shared_bytes), CGL_F(release_gil), CGL_F(open), CGL_F(status),
    CGL_F(failures)
};

size_t cgl_native_layout(size_t *out, size_t n)
{
    size_t i, count = sizeof(cgl_layout) / sizeof(cgl_layout[0]);
    for (i = 0; i < n && i < count; ++i) out[i] = cgl_layout[i];
    return count;
}

void cgl_native_set_api(const cgl_py_api *a) { api = *a; }

static PyObject *cgl_finish(cgl_native_launch *s, CUresult r)
{
    return cgl_finish_call(s->result, s->raiser, &s->status, &s->failures, r);
}

PyObject *cgl_native_fire(PyObject *self, PyObject *unused)
{
    cgl_native_launch *s = (cgl_native_launch *)api.capsule_pointer(self, NULL);
    cgl_launch_kernel_fn launch;
    CUresult r;
    (void)unused;
    if (s == NULL) return NULL;
    if (!s->open) return cgl_finish(s, -1);
    launch = (cgl_launch_kernel_fn)s->entry;
    CGL_DRIVER_CALL(s->release_gil, r, launch(s->function, s->grid[0], s->grid[1], s->grid[2], s->block[0],
                                              s->block[1], s->block[2], s->shared_bytes, s->stream, s->params,
                                              NULL));
    return cgl_finish(s, r);
}

PyObject *cgl_native_fire_graph(PyObject *self, PyObject *unused)
{
    cgl_native_launch *s = (cgl_native_launch *)api.capsule_pointer(self, NULL);
    cgl_graph_launch_fn launch;
    CUresult r;
    (void)unused;
    if (s == NULL) return NULL;
    if (!s->open) return cgl_finish(s, -1);
    launch = (cgl_graph_launch_fn)s->entry;
    CGL_DRIVER_CALL(s->release_gil, r, launch(s->function, s->stream));
    return cgl_finish(s, r);
}

CGL_CAPSULE_FREE(cgl_native_capsule_free)
"""

_VP = ctypes.c_void_p


class _State(ctypes.Structure):
    """``cgl_native_launch``."""

    _fields_ = [("entry", _VP), ("function", _VP), ("stream", _VP), ("params", _VP), ("result", _VP),
                ("raiser", _VP), ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("shared_bytes", ctypes.c_uint32), ("release_gil", ctypes.c_int32), ("open", ctypes.c_int32),
                ("status", ctypes.c_int32), ("failures", ctypes.c_int64)]


def native_launch_library(cache=None):
    """The C of ``NATIVE_LAUNCH_SOURCE`` built (or loaded from the cache), its struct checked field by field against
    ``_State``, and given the Python API, once per cache folder (``core.native_library``, the one loader).
    UnsupportedError without a C compiler (one line), off CPython or where the layouts differ; NativeCompileError
    if the compiler refuses the source."""
    from .native_library import load_native_library

    return load_native_library(NATIVE_LAUNCH_SOURCE, "native_launch", "cgl_native", abi=_ABI, struct=_State,
                               entry_points=("cgl_native_fire", "cgl_native_fire_graph", "cgl_native_capsule_free"),
                               what="native launch", cache=cache)


def launch_kernel_entry() -> int:
    """The address of ``libcuda.so.1``'s exported ``cuLaunchKernel`` (what a C program linked with -lcuda calls,
    and the C loop of ``bench.native``)."""
    return libcuda_entry("cuLaunchKernel")


def graph_launch_entry() -> int:
    """The address of ``libcuda.so.1``'s exported ``cuGraphLaunch``."""
    return libcuda_entry("cuGraphLaunch")


def raise_launch_status(status: int, call: str) -> None:
    """Raise the typed error of a status the C side returned: ``CLOSED_STATUS`` -> CugraphlabError (fired after
    close()), any other nonzero CUresult -> ``core.errors.check``'s CudaError (or CaptureError...) naming it."""
    raise_native_status(status, call)


def _raiser(call: str):
    """``raise_status(code)`` for the C side; it refers to nothing but the call's name (no cycle can pass through
    the capsule, whose context the garbage collector does not see)."""

    def raise_status(code: int) -> None:
        raise_launch_status(code, call)

    return raise_status


def _shut(state: _State) -> None:
    state.open = 0


def _address(x) -> int:
    """A driver handle (cuda.bindings object with ``int()``, a cugraphlab object with ``.handle``, or an int)."""
    h = getattr(x, "handle", x)
    if h is None:
        return 0
    try:
        return int(h)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"not a driver handle: {x!r}") from e


def _dims(name: str, d) -> tuple[int, int, int]:
    t = tuple(int(v) for v in d)
    if len(t) != 3 or any(v < 1 or v > 0xFFFFFFFF for v in t):
        raise InvalidArgumentError(f"{name} must be three positive 32-bit integers, got {d!r}")
    return t


class _NativeCall(BuiltinCall):
    """The common part: the struct, the PyMethodDef, the capsule and the builtin ``fire``."""

    _KIND = "kernel"
    _CALL = "cuLaunchKernel"

    def _setup(self, *, entry: int, function: int, stream: int, params: int = 0, grid=(1, 1, 1),
               block=(1, 1, 1), shared_bytes: int = 0, release_gil: bool = False, buffers: tuple = (),
               cache=None, returns=None) -> None:
        lib = native_launch_library(cache)
        call = f"{self._CALL} (native{', GIL released' if release_gil else ''})"
        raiser = _raiser(call)
        state = _State()
        state.entry, state.function, state.stream = int(entry) or None, int(function) or None, int(stream) or None
        state.params = int(params) or None
        state.grid[:], state.block[:] = _dims("grid", grid), _dims("block", block)
        if isinstance(shared_bytes, bool) or int(shared_bytes) < 0 or int(shared_bytes) > 0xFFFFFFFF:
            raise InvalidArgumentError(f"shared memory bytes must be a 32-bit integer >= 0, got {shared_bytes!r}")
        state.shared_bytes = int(shared_bytes)
        state.release_gil, state.open = int(bool(release_gil)), 1
        state.result, state.raiser = id(returns), id(raiser)
        if not state.entry:
            raise InvalidArgumentError(f"native launch: no {self._CALL} entry point")
        body = lib.addresses["cgl_native_fire_graph" if self._KIND == "graph" else "cgl_native_fire"]
        # Everything the C side reads, kept by the capsule: the struct, the method, the raiser, the result
        # object and the argument buffers. None of them refers to this object or to anything that does.
        self.fire = make_builtin(body, lib.addresses["cgl_native_capsule_free"], state, name="fire",
                                 doc=f"{call}: one launch, None on success, the typed error otherwise",
                                 module=__name__, keep=(raiser, returns, tuple(buffers)))
        self.release_gil = bool(release_gil)
        self.call = call
        self._state = state
        self._own(functools.partial(_shut, state))


class NativeLaunch(_NativeCall):
    """A ``core.launch.Launch`` fired from C: ``fire()`` is one cuLaunchKernel (CUDA Driver API, "Execution
    Control") with the Launch's CUfunction, grid, block, shared memory, stream and packed kernelParams.

    Parameters: ``launch`` a Launch (not programmatic); ``release_gil`` release the GIL around the driver call;
    ``launch_kernel`` the address of the function to call (default libcuda's cuLaunchKernel; tests pass a fake);
    ``cache`` the core.cache.Cache whose folder keeps the compiled C. Raises UnsupportedError without a C compiler
    or for a programmatic launch. The kernelParams array is the Launch's own: ``launch.args.set(i, v)`` changes
    what the next ``fire()`` passes.

        with launch.native() as nl:
            fire = nl.fire
            for _ in range(n):
                fire()          # None, or raises the CudaError of the CUresult
    """

    def __init__(self, launch, *, release_gil: bool = False, launch_kernel: int | None = None, cache=None):
        # Checked by its parts, not by class: core.launch imports this module (Launch.native), never the reverse.
        config: Any = getattr(launch, "config", None)
        if not hasattr(config, "programmatic") or not hasattr(launch, "args"):
            raise InvalidArgumentError(f"NativeLaunch needs a core.launch.Launch, got {launch!r}")
        if config.programmatic:
            raise UnsupportedError("native launch calls cuLaunchKernel: a programmatic launch needs "
                                   "cuLaunchKernelEx (use the Launch itself)")
        if getattr(launch, "stream", None) is None:
            raise InvalidArgumentError(f"NativeLaunch of {launch.kernel.name}: the launch has no stream; bind it "
                                       "first (launch.on(stream))")
        entry = launch_kernel_entry() if launch_kernel is None else int(launch_kernel)
        self.launch = launch
        self._setup(entry=entry, function=_address(launch.kernel.handle), stream=_address(launch.stream.handle),
                    params=int(launch.args.address), grid=launch.config.grid, block=launch.config.block,
                    shared_bytes=launch.config.shared_bytes, release_gil=release_gil,
                    buffers=(launch.args.storage, launch.args.pointers), cache=cache)

    @classmethod
    def from_raw(cls, *, launch_kernel: int, function: int, stream: int, params: int = 0, grid=(1, 1, 1),
                 block=(1, 1, 1), shared_bytes: int = 0, release_gil: bool = False, keep=(), cache=None,
                 returns=None) -> "NativeLaunch":
        """A native cuLaunchKernel from raw addresses (tests; other stacks' handles). ``keep``: objects whose
        memory ``params`` points into, kept as long as ``fire`` exists; ``returns``: what ``fire()`` returns
        (None)."""
        self = cls.__new__(cls)
        self.launch = None
        self._setup(entry=launch_kernel, function=function, stream=stream, params=params, grid=grid, block=block,
                    shared_bytes=shared_bytes, release_gil=release_gil, buffers=tuple(keep), cache=cache,
                    returns=returns)
        return self

    def __repr__(self) -> str:
        name = getattr(getattr(self.launch, "kernel", None), "name", "raw")
        state = "closed" if self.closed else f"grid={tuple(self._state.grid)} block={tuple(self._state.block)}"
        return f"<NativeLaunch {name} {state}{' nogil' if self.release_gil else ''}>"


class NativeGraphLaunch(_NativeCall):
    """A graph replay fired from C: ``fire()`` is one cuGraphLaunch(exec, stream) (CUDA Driver API, "Graph
    Management"). ``graph_exec``: a graphs.exec.GraphExec (or a raw CUgraphExec); ``stream``: a Stream (or a raw
    CUstream); ``graph_launch`` the function's address (default libcuda's; tests pass a fake)."""

    _KIND = "graph"
    _CALL = "cuGraphLaunch"

    def __init__(self, graph_exec, stream, *, release_gil: bool = False, graph_launch: int | None = None,
                 cache=None):
        entry = graph_launch_entry() if graph_launch is None else int(graph_launch)
        self.graph_exec, self.stream = graph_exec, stream
        self._setup(entry=entry, function=_address(graph_exec), stream=_address(stream), release_gil=release_gil,
                    cache=cache)

    def __repr__(self) -> str:
        return f"<NativeGraphLaunch {'closed' if self.closed else 'open'}{' nogil' if self.release_gil else ''}>"
