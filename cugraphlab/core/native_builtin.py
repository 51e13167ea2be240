"""A C function as a CPython builtin: the plumbing every prepared native call shares (``core.native_launch``'s
launches; the exec_update study's prepared graph updates, benchmarks/studies/exec_update/native_update.py).

A prepared native call keeps every argument of one driver call in a C struct and exposes a CPython builtin function
(``METH_NOARGS``) whose C body makes that call through a function pointer. Nothing needs a CUDA or Python header or
``-lcuda``: the C side declares the few Python C-API functions it uses in ``PY_API_C`` and receives them, and the
driver's entry point, as addresses. The steps, in order:

    install_python_api(lib, "cgl_xxx_set_api")   # Py_IncRef, PyCapsule_GetPointer, ... copied into the library
    capsule = PyCapsule_New(&state, NULL, free)  # free: the library's destructor, dropping the capsule's context
    PyCapsule_SetContext(capsule, keep)          # keep: a tuple holding state, PyMethodDef, names, raiser, ...
    fire = PyCFunction_NewEx(&PyMethodDef{name, c_body, METH_NOARGS, doc}, capsule, module name)

The builtin holds the capsule, the capsule holds ``keep``: calling ``fire`` never touches freed host memory, even
after its owner is gone. None of ``keep`` may refer to the owner (the garbage collector does not see the capsule's
context, so a cycle through it would never be collected).
"""
from __future__ import annotations

import ctypes
import functools
import platform
import sys
from typing import Any, Callable

from ._resource import Resource
from .errors import CugraphlabError, NoDeviceError, UnsupportedError, check

__all__ = ["BuiltinCall", "NATIVE_C_PRELUDE", "PY_API_C", "CLOSED_STATUS", "install_python_api", "make_builtin",
           "raise_native_status", "PyApi", "libcuda_entry"]

#: The status a C body hands its raiser when a closed call is fired (no CUresult is negative).
CLOSED_STATUS = -1
METH_NOARGS = 0x0004
_VP = ctypes.c_void_p

#: The Python C-API table a native library declares (``static cgl_py_api api;``, filled by install_python_api).
PY_API_C = r"""
/* The Python C-API functions used, taken from ctypes.pythonapi once per process (no Python.h needed). */
typedef struct {
    void (*incref)(PyObject *);                                   /* Py_IncRef */
    void (*decref)(PyObject *);                                   /* Py_DecRef */
    void *(*capsule_pointer)(PyObject *, const char *);           /* PyCapsule_GetPointer */
    void *(*capsule_context)(PyObject *);                         /* PyCapsule_GetContext */
    PyObject *(*call_function)(PyObject *, const char *, ...);    /* PyObject_CallFunction */
    void *(*save_thread)(void);                                   /* PyEval_SaveThread */
    void (*restore_thread)(void *);                               /* PyEval_RestoreThread */
} cgl_py_api;

static cgl_py_api api;
"""


#: What every native library's C source starts with: the two types it needs without Python.h or cuda.h, the Python
#: C-API table, and the parts each prepared call's ``fire`` shares: the driver call with the GIL released around it
#: when asked, the return (the result object, or the status counted and the raiser called), the capsule destructor.
NATIVE_C_PRELUDE = r"""
#include <stddef.h>
#include <stdint.h>

typedef int CUresult;                 /* CUDA_SUCCESS is 0 */
typedef struct _object PyObject;      /* opaque: only handed back to the interpreter */
""" + PY_API_C + r"""
/* r = call, with PyEval_SaveThread / RestoreThread around it when release_gil is nonzero. */
#define CGL_DRIVER_CALL(release_gil, r, call)                                                    \
    do {                                                                                         \
        if (release_gil) { void *cgl_ts_ = api.save_thread(); r = (call); api.restore_thread(cgl_ts_); } \
        else { r = (call); }                                                                     \
    } while (0)

/* fire()'s return: on CUDA_SUCCESS a new reference to result; else the status kept, the failure counted and
   raiser(status) called (it raises: NULL with the exception set). */
static PyObject *cgl_finish_call(PyObject *result, PyObject *raiser, int32_t *status, int64_t *failures, CUresult r)
{
    if (r == 0) {
        api.incref(result);
        return result;
    }
    *status = r;
    *failures += 1;
    return api.call_function(raiser, "i", (int)r);
}

/* A capsule destructor named NAME: drop the reference its context holds (the tuple keeping the struct alive). */
#define CGL_CAPSULE_FREE(NAME)                                                  \
    void NAME(PyObject *capsule)                                                \
    {                                                                           \
        PyObject *keep = (PyObject *)api.capsule_context(capsule);             \
        if (keep != NULL) api.decref(keep);                                     \
    }
"""


class PyApi(ctypes.Structure):
    """``cgl_py_api`` of ``PY_API_C``."""

    _fields_ = [(n, _VP) for n in ("incref", "decref", "capsule_pointer", "capsule_context", "call_function",
                                   "save_thread", "restore_thread")]


class MethodDef(ctypes.Structure):
    """CPython's ``PyMethodDef``: name, C function, flags, doc."""

    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", _VP), ("ml_flags", ctypes.c_int),
                ("ml_doc", ctypes.c_char_p)]


_API_NAMES = {"incref": "Py_IncRef", "decref": "Py_DecRef", "capsule_pointer": "PyCapsule_GetPointer",
              "capsule_context": "PyCapsule_GetContext", "call_function": "PyObject_CallFunction",
              "save_thread": "PyEval_SaveThread", "restore_thread": "PyEval_RestoreThread"}


def require_cpython(what: str = "native launch") -> None:
    """UnsupportedError (one line) off CPython or before 3.10."""
    if platform.python_implementation() != "CPython" or not hasattr(ctypes, "pythonapi"):
        raise UnsupportedError(f"{what}: needs CPython's C API (this is {platform.python_implementation()})")
    if sys.version_info < (3, 10):  # pragma: no cover - the package needs 3.10+
        raise UnsupportedError(f"{what}: needs Python 3.10 or newer")


class _PythonApi:
    """The interpreter functions the setup calls through ctypes, with prototypes of their own (ctypes.pythonapi's
    shared function objects are left as they are), and their addresses for the C side."""

    def __init__(self):
        require_cpython()
        api = ctypes.pythonapi
        py = ctypes.py_object
        proto = ctypes.PYFUNCTYPE
        self.capsule_new = proto(py, _VP, ctypes.c_char_p, _VP)(("PyCapsule_New", api))
        self.capsule_set_context = proto(ctypes.c_int, py, _VP)(("PyCapsule_SetContext", api))
        self.function_new = proto(py, _VP, py, py)(("PyCFunction_NewEx", api))
        self.incref = proto(None, py)(("Py_IncRef", api))
        self.decref = proto(None, py)(("Py_DecRef", api))
        self.table = PyApi(**{field: ctypes.cast(getattr(api, name), _VP).value
                              for field, name in _API_NAMES.items()})


@functools.lru_cache(maxsize=None)
def python_api() -> _PythonApi:
    return _PythonApi()


def install_python_api(lib, setter: str) -> None:
    """Copy the Python C-API table into ``lib``'s static ``api`` through its ``void setter(const cgl_py_api *)``."""
    fn = getattr(lib, setter)
    fn.restype = None
    fn.argtypes = (ctypes.POINTER(PyApi),)
    fn(ctypes.byref(python_api().table))


def make_builtin(body: int, free: int, state: ctypes.Structure, *, name: str, doc: str, module: str,
                 keep: tuple = ()):
    """A builtin ``name()`` (METH_NOARGS) whose C body is the function at address ``body``, called with a capsule
    of ``state``'s address as ``self``; ``free`` is the library's capsule destructor (it drops the context).
    ``keep``: further objects the C side reads (raiser, result object, argument buffers), alive as long as the
    builtin. Python C API: PyCapsule_New, PyCapsule_SetContext, PyCFunction_NewEx."""
    api = python_api()
    name_b, doc_b = name.encode(), doc.encode()
    method = MethodDef(name_b, body, METH_NOARGS, doc_b)
    hold = (state, method, name_b, doc_b, tuple(keep))
    capsule = api.capsule_new(ctypes.addressof(state), None, free)
    api.incref(hold)
    if api.capsule_set_context(capsule, id(hold)) != 0:  # pragma: no cover - only fails on a non-capsule
        api.decref(hold)
        raise CugraphlabError(f"{name}: PyCapsule_SetContext failed")
    return api.function_new(ctypes.addressof(method), capsule, module)


def raise_native_status(status: int, call: str, what: str = "native launch",
                        owner: str = "NativeLaunch") -> None:
    """Raise the typed error of a status a C body returned: ``CLOSED_STATUS`` -> CugraphlabError (fired after
    close()), any other nonzero CUresult -> ``core.errors.check``'s CudaError (or CaptureError...) naming it."""
    status = int(status)
    if status == CLOSED_STATUS:
        raise CugraphlabError(f"{call}: this {what} is closed (close() was called, or its owner was "
                              f"garbage-collected: keep the {owner} while you call its fire)")
    if status == 0:
        return
    try:
        from ._calls import driver_module

        code = driver_module().CUresult(status)
    except Exception:  # not a known CUresult value (or no bindings): keep the number
        code = status
    check((code,), call)


def libcuda_entry(name: str) -> int:
    """The address of ``libcuda.so.1``'s exported ``name`` (what a C program linked with -lcuda calls).
    NoDeviceError without the NVIDIA driver library (or without that export)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        return int(ctypes.cast(getattr(lib, name), _VP).value or 0)
    except (OSError, AttributeError) as e:
        raise NoDeviceError(f"native call: libcuda.so.1 has no usable {name} ({e}): it needs the NVIDIA "
                            "driver") from e


class BuiltinCall(Resource):
    """What every prepared native call shares (core.native_launch, the exec_update study's native update):
    ``fire``, the builtin made by make_builtin, and the counters its C state keeps (``_state``: a ctypes struct with
    ``status`` and ``failures``)."""

    _state: Any = None
    fire: Callable[[], None]  # set by each kind's constructor: the builtin

    @property
    def status(self) -> int:
        """The last status the driver returned that was not CUDA_SUCCESS (0: none yet; -1: fired after close)."""
        return int(self._state.status)

    @property
    def failures(self) -> int:
        """How many calls did not return CUDA_SUCCESS (closed fires included)."""
        return int(self._state.failures)

    def __call__(self) -> None:
        """One call (``self.fire()``; a hot loop calls ``fire`` itself and saves this Python frame)."""
        self.fire()
