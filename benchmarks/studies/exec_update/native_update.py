"""A prepared graph update whose Python call lands directly in C: cuGraphExecUpdate (or one node's
cuGraphExecKernelNodeSetParams) with no binding between.

Why: on an H200 a cuGraphExecUpdate costs the driver 0.25 µs (same argument values) to 0.61 µs (four kernel nodes
given new ones) from a C loop; every Python way through a binding adds 0.9-1.1 µs (cuda.bindings converts both
handles and builds a result-info object per call; ctypes converts three pointers). Here every argument is
prepared once in a C struct, and ``fire()`` is a CPython builtin (``METH_NOARGS``, ``core.native_builtin``) whose C
body is one driver call through a function pointer; the result-info struct the driver writes into is part of that C
struct, so a refused update still says why.

How it is built, in order (nothing needs a CUDA or Python header, or ``-lcuda``):

    lib = load_c_library(NATIVE_UPDATE_SOURCE, "native_update")  # core.native: cc -O2 -shared, cached
    lib.cgl_update_set_api(&api)            # the Python C-API table (core.native_builtin)
    state = cgl_native_update{entry: libcuda's cuGraphExecUpdate_v2, exec, target: the CUgraph, info, raiser}
    fire = PyCFunction_NewEx("fire", cgl_update_fire, METH_NOARGS, capsule(state))

    fire()                                  # cgl_update_fire:
                                            #   info = {0}; r = cuGraphExecUpdate_v2(exec, graph, &info)
                                            #   r == 0: return None; else: raiser(r) -> the typed CudaError,
                                            #   naming the CUresult, info.result and info.errorNode

``NativeKernelNodeSetParams`` is the same for one kernel node of the executable:
``cuGraphExecKernelNodeSetParams_v2(exec, node, &params)``, ``params`` a ``CUDA_KERNEL_NODE_PARAMS_v2`` (what
``CUDA_KERNEL_NODE_PARAMS`` is in cuda.h 12.x and 13.x: func, grid x/y/z, block x/y/z, shared bytes, kernelParams,
extra, kern, ctx) filled once in C memory from a ``core.launch.Launch``; its kernelParams is the Launch's packed
``void**``, kept alive by the capsule (the driver copies the values at each call: ``launch.args.set`` changes what
the next ``fire()`` sets). The node is one of the graph the executable was instantiated from.

Lifetime as ``core.native_launch``: the builtin holds the capsule, the capsule the struct and the buffers;
``close()`` (or the garbage collector) marks the struct closed and a later ``fire()`` raises CugraphlabError without
calling the driver. The graph, the executable and the node stay owned by their Graph / GraphExec: keep them (the
object holds references) and close the native update first. No tracing (``--trace`` sees no call); the GIL is held
unless ``release_gil=True``. CPython only; needs a C compiler at run time (UnsupportedError, one line, without one).
CUDA Driver API, "Graph Management": cuGraphExecUpdate, cuGraphExecKernelNodeSetParams.
"""
from __future__ import annotations

import ctypes
import functools

from cugraphlab.core._calls import driver_module
from cugraphlab.core.errors import CudaError, InvalidArgumentError, UnsupportedError
from cugraphlab.core.native_builtin import (
    NATIVE_C_PRELUDE,
    BuiltinCall,
    libcuda_entry,
    make_builtin,
    raise_native_status,
)
from cugraphlab.graphs.handles import as_handle
from cugraphlab.graphs.update import SUCCESS, UPDATE_REASONS, exec_update_report

__all__ = ["NativeExecUpdate", "NativeKernelNodeSetParams", "NATIVE_UPDATE_SOURCE", "native_update_library",
           "exec_update_entry", "set_params_entry", "UPDATE_FAILURE"]

_ABI = 1
#: CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: the driver refused the update (the result info says why).
UPDATE_FAILURE = 910

NATIVE_UPDATE_SOURCE = r"""
/* cugraphlab native update: one prepared cuGraphExecUpdate_v2 / cuGraphExecKernelNodeSetParams_v2 behind a CPython
   METH_NOARGS builtin. */
""" + NATIVE_C_PRELUDE + r"""
typedef struct {                      /* CUgraphExecUpdateResultInfo_v1 (cuda.h 12.x, 13.x) */
    int result;                       /* CUgraphExecUpdateResult */
    void *errorNode;                  /* CUgraphNode: the node blamed (the "to" node of a changed edge) */
    void *errorFromNode;              /* CUgraphNode: the "from" node of a changed edge */
} cgl_update_info;

typedef struct {                      /* CUDA_KERNEL_NODE_PARAMS_v2 = CUDA_KERNEL_NODE_PARAMS (cuda.h 12.x, 13.x) */
    void *func;                       /* CUfunction */
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
    void *kern;                       /* CUkernel: read only when func is NULL */
    void *ctx;                        /* CUcontext: ignored when func is set */
} cgl_kernel_node_params;

typedef CUresult (*cgl_exec_update_fn)(void *hGraphExec, void *hGraph, cgl_update_info *resultInfo);
typedef CUresult (*cgl_set_params_fn)(void *hGraphExec, void *hNode, const cgl_kernel_node_params *nodeParams);

/* One prepared call. Field order and types mirror _State in native_update.py (checked field by field). */
typedef struct {
    void *entry;                      /* cuGraphExecUpdate_v2 or cuGraphExecKernelNodeSetParams_v2 */
    void *exec;                       /* CUgraphExec */
    void *target;                     /* CUgraph (update) or CUgraphNode (set params) */
    PyObject *result;                 /* borrowed (kept by the capsule's context): returned on success */
    PyObject *raiser;                 /* borrowed: raiser(status) raises the typed error */
    cgl_update_info info;             /* the driver's account of the last update */
    cgl_kernel_node_params params;    /* what set params passes */
    int32_t release_gil;
    int32_t open;                     /* zero once closed: fire() raises instead of calling the driver */
    int32_t status;                   /* the last status that was not CUDA_SUCCESS (-1: fired while closed) */
    int32_t reserved;
    int64_t calls;                    /* driver calls made */
    int64_t failures;                 /* calls that did not return CUDA_SUCCESS */
} cgl_native_update;

int cgl_update_abi(void) { return 1; }
size_t cgl_update_api_sizeof(void) { return sizeof(cgl_py_api); }

#define CGL_F(f) offsetof(cgl_native_update, f)
/* The struct's size, then the offset of every field, in _State's order (nested ones flattened). */
static const size_t cgl_layout[] = {
    sizeof(cgl_native_update), CGL_F(entry), CGL_F(exec), CGL_F(target), CGL_F(result), CGL_F(raiser),
    CGL_F(info.result), CGL_F(info.errorNode), CGL_F(info.errorFromNode),
    CGL_F(params.func), CGL_F(params.gridDimX), CGL_F(params.gridDimY), CGL_F(params.gridDimZ),
    CGL_F(params.blockDimX), CGL_F(params.blockDimY), CGL_F(params.blockDimZ), CGL_F(params.sharedMemBytes),
    CGL_F(params.kernelParams), CGL_F(params.extra), CGL_F(params.kern), CGL_F(params.ctx),
    CGL_F(release_gil), CGL_F(open), CGL_F(status), CGL_F(reserved), CGL_F(calls), CGL_F(failures),
    sizeof(cgl_update_info), sizeof(cgl_kernel_node_params)
};

size_t cgl_update_layout(size_t *out, size_t n)
{
    size_t i, count = sizeof(cgl_layout) / sizeof(cgl_layout[0]);
    for (i = 0; i < n && i < count; ++i) out[i] = cgl_layout[i];
    return count;
}

void cgl_update_set_api(const cgl_py_api *a) { api = *a; }

static PyObject *cgl_finish(cgl_native_update *s, CUresult r)
{
    return cgl_finish_call(s->result, s->raiser, &s->status, &s->failures, r);
}

PyObject *cgl_update_fire(PyObject *self, PyObject *unused)
{
    cgl_native_update *s = (cgl_native_update *)api.capsule_pointer(self, NULL);
    cgl_exec_update_fn update;
    CUresult r;
    (void)unused;
    if (s == NULL) return NULL;
    if (!s->open) return cgl_finish(s, -1);
    update = (cgl_exec_update_fn)s->entry;
    s->info.result = 0;               /* CU_GRAPH_EXEC_UPDATE_SUCCESS until the driver says otherwise */
    s->info.errorNode = NULL;
    s->info.errorFromNode = NULL;
    s->calls += 1;
    CGL_DRIVER_CALL(s->release_gil, r, update(s->exec, s->target, &s->info));
    return cgl_finish(s, r);
}

PyObject *cgl_set_params_fire(PyObject *self, PyObject *unused)
{
    cgl_native_update *s = (cgl_native_update *)api.capsule_pointer(self, NULL);
    cgl_set_params_fn set_params;
    CUresult r;
    (void)unused;
    if (s == NULL) return NULL;
    if (!s->open) return cgl_finish(s, -1);
    set_params = (cgl_set_params_fn)s->entry;
    s->calls += 1;
    CGL_DRIVER_CALL(s->release_gil, r, set_params(s->exec, s->target, &s->params));
    return cgl_finish(s, r);
}

CGL_CAPSULE_FREE(cgl_update_capsule_free)
"""

_VP = ctypes.c_void_p
_U32 = ctypes.c_uint32


class ResultInfo(ctypes.Structure):
    """``CUgraphExecUpdateResultInfo``: the result enum, then two node handles."""

    _fields_ = [("result", ctypes.c_int), ("errorNode", _VP), ("errorFromNode", _VP)]


class KernelNodeParams(ctypes.Structure):
    """``CUDA_KERNEL_NODE_PARAMS_v2`` (72 bytes on 64-bit Linux: func, 7 uints, 4 bytes of padding, 4 pointers)."""

    _fields_ = [("func", _VP), ("gridDimX", _U32), ("gridDimY", _U32), ("gridDimZ", _U32), ("blockDimX", _U32),
                ("blockDimY", _U32), ("blockDimZ", _U32), ("sharedMemBytes", _U32), ("kernelParams", _VP),
                ("extra", _VP), ("kern", _VP), ("ctx", _VP)]


class _State(ctypes.Structure):
    """``cgl_native_update``."""

    _fields_ = [("entry", _VP), ("exec", _VP), ("target", _VP), ("result", _VP), ("raiser", _VP),
                ("info", ResultInfo), ("params", KernelNodeParams), ("release_gil", ctypes.c_int32),
                ("open", ctypes.c_int32), ("status", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("calls", ctypes.c_int64), ("failures", ctypes.c_int64)]


def native_update_library(cache=None):
    """The C of ``NATIVE_UPDATE_SOURCE`` built (or loaded from the cache) and given the Python API, once per cache
    folder; its struct layout checked field by field against ctypes' (``cugraphlab.core.native_library``, the one
    loader of the package's launches too). UnsupportedError without a C compiler (one line), off CPython, or where
    the layouts differ; NativeCompileError if the compiler refuses the source."""
    from cugraphlab.core.native_library import load_native_library

    return load_native_library(NATIVE_UPDATE_SOURCE, "native_update", "cgl_update", abi=_ABI, struct=_State,
                               entry_points=("cgl_update_fire", "cgl_set_params_fire", "cgl_update_capsule_free"),
                               what="native update", cache=cache)


def exec_update_entry() -> int:
    """The address of libcuda.so.1's ``cuGraphExecUpdate_v2`` (what ``cuGraphExecUpdate`` is in cuda.h 12+)."""
    return libcuda_entry("cuGraphExecUpdate_v2")


def set_params_entry() -> int:
    """The address of libcuda.so.1's ``cuGraphExecKernelNodeSetParams_v2`` (``cuGraphExecKernelNodeSetParams``
    in cuda.h 12+, taking a CUDA_KERNEL_NODE_PARAMS_v2)."""
    return libcuda_entry("cuGraphExecKernelNodeSetParams_v2")


def _address(x) -> int:
    """A handle (a cugraphlab object with ``.handle``, a cuda.bindings handle, or an int) as an int."""
    try:
        return int(as_handle(x))
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"not a driver handle: {x!r}") from e


def _result_name(value: int) -> str:
    try:
        return driver_module().CUgraphExecUpdateResult(int(value)).name
    except Exception:  # a value newer than the bindings (or no bindings)
        return f"CUgraphExecUpdateResult {int(value)}"


def _node_label(address: int | None) -> str | None:
    if not address:
        return None
    try:
        from cugraphlab.graphs.inspect import node_label

        return node_label(driver_module().CUgraphNode(int(address)))
    except Exception:  # the node is gone or the driver cannot say: its address is all there is
        return f"node {int(address):#x}"


def _explain(info: ResultInfo) -> str:
    """"CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED at KERNEL:add (the new graph has other nodes or edges)"."""
    name = _result_name(info.result)
    node = _node_label(info.errorNode)
    return f"{name}{f' at {node}' if node else ''} ({UPDATE_REASONS.get(name, 'the driver refused the update')})"


def _raiser(call: str, info: ResultInfo | None, what: str, owner: str):
    """``raise_status(code)`` for the C side. It refers to the call's name and the C-owned result info only (no
    cycle can pass through the capsule, whose context the garbage collector does not see)."""

    def raise_status(code: int) -> None:
        where = call
        if info is not None and code == UPDATE_FAILURE:
            where = f"{call}: {_explain(info)}"
        raise_native_status(code, where, what, owner)

    return raise_status


def _shut(state: _State) -> None:
    state.open = 0


class _NativeGraphCall(BuiltinCall):
    """The common part: the struct, the builtin ``fire`` and the counters."""

    _CALL = "cuGraphExecUpdate"
    _BODY = "cgl_update_fire"

    def _setup(self, *, entry: int, exe, target, release_gil: bool, cache, keep: tuple = (), params=None) -> None:
        lib = native_update_library(cache)
        state = _State()
        state.entry, state.exec, state.target = int(entry) or None, _address(exe) or None, _address(target) or None
        if not state.entry:
            raise InvalidArgumentError(f"native {self._CALL}: no entry point")
        if params is not None:
            state.params = params
        call = f"{self._CALL} (native{', GIL released' if release_gil else ''})"
        owner = type(self).__name__
        raiser = _raiser(call, state.info if params is None else None, "native update", owner)
        state.release_gil, state.open = int(bool(release_gil)), 1
        state.result, state.raiser = id(None), id(raiser)
        self.fire = make_builtin(lib.addresses[self._BODY], lib.addresses["cgl_update_capsule_free"], state,
                                 name="fire", doc=f"{call}: one call, None on success, the typed error otherwise",
                                 module=__name__, keep=(raiser, None, tuple(keep)))
        self.release_gil, self.call, self._state = bool(release_gil), call, state
        self._own(functools.partial(_shut, state))

    @property
    def calls(self) -> int:
        """How many driver calls ``fire`` made."""
        return int(self._state.calls)


class NativeExecUpdate(_NativeGraphCall):
    """``cuGraphExecUpdate(graph_exec, graph, &info)`` fired from C (CUDA Driver API, "Graph Management").

    Parameters: ``graph_exec`` a GraphExec (or raw CUgraphExec); ``graph`` the Graph to take parameters from (or
    a raw CUgraph); ``release_gil`` release the GIL around the driver call; ``exec_update`` the function's address
    (default libcuda's cuGraphExecUpdate_v2; tests pass a fake); ``cache`` the core.cache.Cache keeping the
    compiled C. Raises UnsupportedError without a C compiler, NoDeviceError without libcuda.

        with NativeExecUpdate(exe, graph) as upd:
            upd.fire()                 # None, or the CudaError naming the CUresult, info.result and the node
            report = upd.update()      # an UpdateReport, try_exec_update's answer: a refusal is not raised

    After each call ``info`` (a ``CUgraphExecUpdateResultInfo`` in the C struct), ``result`` and ``error_node``
    hold the driver's account. ``graph_exec`` and ``graph`` are kept referenced; close this object before them.
    """

    def __init__(self, graph_exec, graph, *, release_gil: bool = False, exec_update: int | None = None,
                 cache=None):
        entry = exec_update_entry() if exec_update is None else int(exec_update)
        self.graph_exec, self.graph = graph_exec, graph
        self._setup(entry=entry, exe=graph_exec, target=graph, release_gil=release_gil, cache=cache)

    @property
    def info(self) -> ResultInfo:
        """The C-owned result info of the last call (the driver writes it; zeroed before each call)."""
        return self._state.info

    @property
    def result(self) -> str:
        """The last call's CUgraphExecUpdateResult name (CU_GRAPH_EXEC_UPDATE_SUCCESS before any call)."""
        return _result_name(self._state.info.result)

    @property
    def error_node(self) -> str | None:
        """A label of the node the driver blamed in the last call (None: no node)."""
        return _node_label(self._state.info.errorNode)

    def update(self):
        """One call; an UpdateReport like ``graphs.update.try_exec_update``'s. A refused update
        (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) is reported; any other failure raises."""
        try:
            self.fire()
        except CudaError as e:
            if e.code != UPDATE_FAILURE:
                raise
            return exec_update_report(self.result, self.error_node)
        return exec_update_report(SUCCESS)

    def __repr__(self) -> str:
        return f"<NativeExecUpdate {'closed' if self.closed else 'open'}{' nogil' if self.release_gil else ''}>"


def kernel_node_params(launch, ctx=None) -> KernelNodeParams:
    """A ``CUDA_KERNEL_NODE_PARAMS_v2`` in C memory for a ``core.launch.Launch``: its CUfunction, grid, block,
    shared bytes and packed kernelParams; extra and kern NULL; ``ctx`` (a CUcontext or None)."""
    p = KernelNodeParams()
    p.func = _address(launch.kernel.handle) or None
    p.gridDimX, p.gridDimY, p.gridDimZ = (int(v) for v in launch.config.grid)
    p.blockDimX, p.blockDimY, p.blockDimZ = (int(v) for v in launch.config.block)
    p.sharedMemBytes = int(launch.config.shared_bytes)
    p.kernelParams = int(launch.args.address) or None
    p.ctx = (_address(ctx) or None) if ctx is not None else None
    return p


class NativeKernelNodeSetParams(_NativeGraphCall):
    """``cuGraphExecKernelNodeSetParams(graph_exec, node, &params)`` fired from C (CUDA Driver API, "Graph
    Management"): one kernel node of the executable given ``launch``'s kernel, dimensions and arguments.

    Parameters: ``graph_exec`` a GraphExec (or raw handle); ``node`` the kernel node of the graph the executable was
    instantiated from (a CUgraphNode or int); ``launch`` a core.launch.Launch (not programmatic: the node's
    attributes are not touched); ``ctx`` the node's CUcontext (nodes of conditional bodies); ``set_params`` the
    function's address (default libcuda's cuGraphExecKernelNodeSetParams_v2; tests pass a fake). The params struct
    is filled once; its kernelParams is the Launch's own ``void**`` (kept alive here), so ``launch.args.set(i, v)``
    changes what the next ``fire()`` sets. UnsupportedError without a C compiler.
    """

    _CALL = "cuGraphExecKernelNodeSetParams"
    _BODY = "cgl_set_params_fire"

    def __init__(self, graph_exec, node, launch, *, ctx=None, release_gil: bool = False,
                 set_params: int | None = None, cache=None):
        from cugraphlab.core.launch import Launch

        if not isinstance(launch, Launch):
            raise InvalidArgumentError(f"NativeKernelNodeSetParams needs a core.launch.Launch, got {launch!r}")
        if launch.config.programmatic:
            raise UnsupportedError("native set params: a programmatic launch's node attributes are not set here "
                                   "(use graphs.update.set_kernel_params)")
        entry = set_params_entry() if set_params is None else int(set_params)
        self.graph_exec, self.node, self.launch = graph_exec, node, launch
        self._setup(entry=entry, exe=graph_exec, target=node, release_gil=release_gil, cache=cache,
                    params=kernel_node_params(launch, ctx), keep=(launch.args.storage, launch.args.pointers))

    @property
    def params(self) -> KernelNodeParams:
        """The C-owned CUDA_KERNEL_NODE_PARAMS_v2 each call passes."""
        return self._state.params

    def __repr__(self) -> str:
        name = getattr(getattr(self.launch, "kernel", None), "name", "?")
        return f"<NativeKernelNodeSetParams {name} {'closed' if self.closed else 'open'}>"

