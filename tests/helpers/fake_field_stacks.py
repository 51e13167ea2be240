"""Stand-ins for what the H200 run of the field gallery met in the real stacks, for the doctor's CPU tests:

- ``FAKE_TORCH``: a PyTorch whose ``CUDAGraph`` invalidates the capture that is running when an old graph is
  destroyed (its destructor's cudaGraphExecDestroy and pool release are refused by a global capture), whose
  ``Tensor`` can be freed (weakly referenced), and whose ``.item()`` synchronizes;
- ``FAKE_CUPY``: a CuPy whose ``ndarray.get()`` refuses the D2H copy itself while its stream captures (RuntimeError,
  no CUDA code), whose ``Event.done`` swallows the driver's answer (the capture is invalidated, nothing raised) and
  whose frames are Cython's (file names "cupy/_core/core.pyx", relative, as on the H200);
- ``cython_module(name, source, filename)``: a module whose functions' frames carry a Cython-like relative file name
  (cuda.core's "cuda/core/_utils/cuda_utils.pyx").

``install(tmp_path, files)`` writes a fake package and registers its files as a library's (not the user's).
"""
from __future__ import annotations

import sys
import textwrap
import types

FAKE_TORCH = {
    "torch/__init__.py": "from . import cuda\nfrom .cuda import Tensor\n",
    "torch/cuda/__init__.py": textwrap.dedent('''
        from .graphs import CUDAGraph, graph, state
        class _Device:
            index = 0
        class _Stream:
            cuda_stream = 0x5150
            device = _Device()
        def current_stream():
            return _Stream()
        def current_device():
            return 0
        def synchronize():
            if state["capturing"]:
                state["bad"] = True
                raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
        class Tensor:
            is_cuda = True
            shape = (4,)
            dtype = "torch.float32"
            def item(self):
                synchronize()
                return 1.0
            def data_ptr(self):
                return id(self)
    '''),
    "torch/cuda/graphs.py": textwrap.dedent('''
        state = {"capturing": False, "bad": False, "destroyed": 0}
        class CUDAGraph:
            def capture_begin(self, pool=None, capture_error_mode="global"):
                state["capturing"], state["bad"] = True, False
            def capture_end(self):
                state["capturing"] = False
                if state["bad"]:
                    raise RuntimeError("CUDA error: operation failed due to a previous error during capture")
            def replay(self):
                pass
            def __del__(self):  # cudaGraphExecDestroy and the private pool's release
                state["destroyed"] += 1
                if state["capturing"]:
                    state["bad"] = True
        class graph:
            def __init__(self, g, capture_error_mode="global"):
                self.g, self.mode = g, capture_error_mode
            def __enter__(self):
                self.g.capture_begin(capture_error_mode=self.mode)
            def __exit__(self, *exc):
                self.g.capture_end()
    '''),
}

# CuPy's classes are Cython's: the stack watch cannot patch a cdef class, so this fake's capture calls are plain
# Python (patchable) but every frame that refuses or raises is compiled under a Cython-like relative file name.
_CUPY_CORE = '''
class RuntimeErrorCapturing(RuntimeError):
    pass
def copy_to_host_async(stream):
    if stream.capturing:
        stream.invalid = True
        raise RuntimeError("the current stream is capturing, so D2H transfers are disallowed")
def event_query(stream):
    if stream.capturing:
        stream.invalid = True  # cudaErrorStreamCaptureUnsupported, swallowed: done answers False
        return 900
    return 0
def check_status(stream):
    if stream.invalid:
        raise CUDARuntimeError(
            "cudaErrorStreamCaptureInvalidated: operation failed due to a previous error during capture")
'''

FAKE_CUPY = {
    "cupy/__init__.py": textwrap.dedent('''
        from . import cuda
        from .cuda import ndarray
        def asnumpy(a):
            return a.get()
    '''),
    "cupy/cuda/__init__.py": textwrap.dedent('''
        import sys as _sys
        import types as _types
        class CUDARuntimeError(RuntimeError):
            pass
        _core = _types.ModuleType("cupy._core_fake")
        _core.CUDARuntimeError = CUDARuntimeError
        exec(compile(CORE, "cupy/_core/core.pyx", "exec"), _core.__dict__)
        class Stream:
            current = None
            def __init__(self, non_blocking=False):
                self.ptr, self.capturing, self.invalid = 0x7000 + id(self) % 997, False, False
            def __enter__(self):
                Stream.current = self
                return self
            def __exit__(self, *exc):
                Stream.current = None
            def begin_capture(self, mode=None):
                self.capturing, self.invalid = True, False
            def end_capture(self):
                self.capturing = False
                _core.check_status(self)
                return Graph()
        class Graph:
            def launch(self, stream=None):
                pass
        class Event:
            def record(self, stream=None):
                self.stream = stream
            @property
            def done(self):
                return _core.event_query(self.stream) == 0
        class ndarray:
            def get(self):
                _core.copy_to_host_async(Stream.current)
                return [1.0]
    ''').replace("CORE", repr(_CUPY_CORE)),
}


def install(tmp_path, files: dict, monkeypatch):
    """Write ``files`` under ``tmp_path``, register them as a library's and put them first on sys.path; a
    generator (a fixture's body): modules of theirs imported before are hidden meanwhile and restored after."""
    from cugraphlab.graphs.doctor.cupti import treat_as_library

    tops = set()
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        treat_as_library(str(p))
        tops.add(rel.split("/", 1)[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    mine = lambda k: k.split(".", 1)[0] in tops  # noqa: E731
    saved = {k: v for k, v in sys.modules.items() if mine(k)}
    for k in saved:
        del sys.modules[k]
    yield tmp_path
    for k in [k for k in sys.modules if mine(k)]:
        del sys.modules[k]
    sys.modules.update(saved)


def cython_module(name: str, source: str, filename: str) -> types.ModuleType:
    """A module whose code objects carry ``filename`` (relative, as Cython's tracebacks name a .pyx)."""
    mod = types.ModuleType(name)
    exec(compile(textwrap.dedent(source), filename, "exec"), mod.__dict__)
    return mod


def doctor_conditional_driver(monkeypatch):
    """fake_conditional's driver (capture into a conditional body, invalidated by a synchronize as on the H200)
    answering cuStreamIsCapturing too, as the capture doctor asks after every call; installed and returned."""
    from cuda.bindings import driver as real

    from fake_conditional import FakeConditionalDriver
    from fake_driver import OK, patch_driver

    class DoctorConditionalDriver(FakeConditionalDriver):
        def cuStreamIsCapturing(self, stream):
            S = real.CUstreamCaptureStatus
            cap = self.captures.get(int(stream))
            if cap is None:
                return (OK, S.CU_STREAM_CAPTURE_STATUS_NONE)
            return (OK, S.CU_STREAM_CAPTURE_STATUS_INVALIDATED if cap.get("invalid") else
                    S.CU_STREAM_CAPTURE_STATUS_ACTIVE)

    fake = DoctorConditionalDriver()
    patch_driver(monkeypatch, fake)
    return fake


# --- a CuPy on NumPy that runs the gallery's real CuPy cases --------------------------------------------------------
# What CuPy did on the H200, modelled: ndarray.get() refuses a D2H copy while the current stream captures
# (RuntimeError, no CUDA code, the capture left open); Stream.synchronize() of a capturing stream is refused with
# cudaErrorStreamCaptureUnsupported and invalidates the capture; Event.done of an event recorded in the capture
# answers False and invalidates it, raising nothing; end_capture of an invalidated capture raises
# cudaErrorStreamCaptureInvalidated. Every refusal is raised from a frame named like Cython's ("cupy/...pyx").
_NUMPY_CUPY_CORE = '''
def refuse_d2h(stream):
    if stream is not None and stream.capturing:
        raise RuntimeError("the current stream is capturing, so D2H transfers are disallowed")
def stream_synchronize(stream):
    if stream.capturing:
        stream.invalid = True
        raise CUDARuntimeError("cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing")
def event_query(event):
    s = event.stream
    if s is not None and s.capturing and event.in_capture:
        s.invalid = True
        return 900
    return 0
def end_capture(stream):
    if stream.invalid:
        raise CUDARuntimeError(
            "cudaErrorStreamCaptureInvalidated: operation failed due to a previous error during capture")
'''

NUMPY_CUPY = {
    "cupy/__init__.py": textwrap.dedent('''
        import numpy as _np
        from . import cuda
        from .cuda import ndarray, _current, _run
        float32 = _np.float32
        def _v(y):
            return y.a if isinstance(y, ndarray) else y
        def asarray(a):
            return ndarray(_np.array(a, dtype=_np.float32))
        def empty_like(a):
            return ndarray(_np.empty_like(a.a))
        def empty(n, dtype=_np.float32):
            return ndarray(_np.empty(n, dtype=dtype))
        def multiply(x, y, out):
            _run(lambda: _np.multiply(x.a, _v(y), out=out.a))
        def subtract(x, y, out):
            _run(lambda: _np.subtract(x.a, _v(y), out=out.a))
        def add(x, y, out):
            _run(lambda: _np.add(x.a, _v(y), out=out.a))
        def asnumpy(a, stream=None):
            return a.get(stream=stream)
    '''),
    "cupy/cuda/__init__.py": textwrap.dedent('''
        import types as _types
        import numpy as _np
        from . import runtime
        class CUDARuntimeError(RuntimeError):
            pass
        CUDARuntimeError.__module__ = "cupy_backends.cuda.api.runtime"
        _core = _types.ModuleType("cupy_core_fake")
        _core.CUDARuntimeError = CUDARuntimeError
        exec(compile(CORE, "cupy_backends/cuda/api/runtime.pyx", "exec"), _core.__dict__)
        _stack = []
        def _current():
            return _stack[-1] if _stack else None
        def _run(op):
            s = _current()
            if s is not None and s.capturing:
                s.ops.append(op)
            else:
                op()
        class Stream:
            def __init__(self, non_blocking=False):
                self.ptr = 0x7000 + id(self) % 4093
                self.capturing, self.invalid, self.ops = False, False, []
            def __enter__(self):
                _stack.append(self)
                return self
            def __exit__(self, *exc):
                _stack.pop()
            def synchronize(self):
                _core.stream_synchronize(self)
            def begin_capture(self, mode=None):
                self.capturing, self.invalid, self.ops = True, False, []
            def end_capture(self):
                self.capturing = False
                _core.end_capture(self)
                return Graph(self.ops)
        class Graph:
            def __init__(self, ops):
                self.ops = list(ops)
            def launch(self, stream=None):
                for op in self.ops:
                    op()
        class Event:
            def __init__(self):
                self.stream, self.in_capture = None, False
            def record(self, stream=None):
                self.stream = stream or _current()
                self.in_capture = bool(self.stream is not None and self.stream.capturing)
            def synchronize(self):
                pass
            @property
            def done(self):
                return _core.event_query(self) == 0
        class ndarray:
            def __init__(self, a):
                self.a = a
            def get(self, stream=None):
                _core.refuse_d2h(_current())
                return self.a.copy()
            def fill(self, value):
                _run(lambda: self.a.fill(value))
    ''').replace("CORE", repr(_NUMPY_CUPY_CORE)),
    "cupy/cuda/runtime.py": "def getDeviceCount():\n    return 1\n",
}


# --- a PyTorch on NumPy that runs the gallery's real PyTorch replay cases ------------------------------------------
# A capture records each op with the arrays it reads and writes (raw memory, as a CUDA graph holds pointers, never
# the Tensor objects); a replay runs them again. Destroying a CUDAGraph while a capture runs invalidates that capture
# (its destructor's cudaGraphExecDestroy and private-pool release), as the H200 run met it.
NUMPY_TORCH = {
    "torch/__init__.py": textwrap.dedent('''
        import numpy as _np
        from . import cuda
        from .cuda import Tensor
        float32 = "torch.float32"
        def from_numpy(a):
            return Tensor(_np.asarray(a), is_cuda=False)
        def empty(n, device="cpu"):
            return Tensor(_np.empty(n, dtype=_np.float32), is_cuda=device == "cuda")
        def empty_like(x):
            return Tensor(_np.empty_like(x.a), is_cuda=x.is_cuda)
    '''),
    "torch/cuda/__init__.py": textwrap.dedent('''
        import contextlib
        import numpy as _np
        from .graphs import CUDAGraph, graph, state
        class _Device:
            index = 0
        class Stream:
            cuda_stream = 0x5150
            device = _Device()
            def wait_stream(self, other):
                pass
        _default = Stream()
        def current_stream():
            return _default
        @contextlib.contextmanager
        def stream(s):
            yield s
        def current_device():
            return 0
        def is_available():
            return True
        def device_count():
            return 1
        def memory_stats():
            return {}
        def synchronize():
            if state["capturing"]:
                state["bad"] = True
                raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
        def _run(op):
            if state["capturing"]:
                state["ops"].append(op)
            else:
                op()
        class Tensor:
            def __init__(self, a, is_cuda=True):
                self.a, self.is_cuda = a, is_cuda
                self.shape, self.dtype = a.shape, "torch.float32"
            def data_ptr(self):
                return self.a.ctypes.data
            def cuda(self):
                return Tensor(self.a.astype(_np.float32, copy=True), is_cuda=True)
            def cpu(self):
                synchronize()
                return Tensor(self.a.copy(), is_cuda=False)
            def numpy(self):
                return self.a
            def copy_(self, other):
                dst, src = self.a, other.a
                _run(lambda: _np.copyto(dst, src))
                return self
            def fill_(self, value):
                dst = self.a
                _run(lambda: dst.fill(value))
                return self
            def __mul__(self, k):
                out = Tensor(_np.empty_like(self.a), is_cuda=self.is_cuda)
                dst, src = out.a, self.a
                def scale():  # src may be a fresh torch.empty's garbage, as on a GPU: its overflow is not news
                    with _np.errstate(over="ignore", invalid="ignore"):
                        _np.multiply(src, _np.float32(k), out=dst) if _np.isfinite(src).all() else dst.fill(_np.nan)
                _run(scale)
                return out
    '''),
    "torch/cuda/graphs.py": textwrap.dedent('''
        import gc
        state = {"capturing": False, "bad": False, "ops": [], "destroyed": 0}
        class CUDAGraph:
            def __init__(self):
                self.ops = []
            def capture_begin(self, pool=None, capture_error_mode="global"):
                state["capturing"], state["bad"], state["ops"] = True, False, []
            def capture_end(self):
                state["capturing"] = False
                if state["bad"]:
                    raise RuntimeError("CUDA error: operation failed due to a previous error during capture")
                self.ops = state["ops"]
            def replay(self):
                for op in self.ops:
                    op()
            def __del__(self):
                state["destroyed"] += 1
                if state["capturing"]:
                    state["bad"] = True
        class graph:
            def __init__(self, g, pool=None, stream=None, capture_error_mode="global"):
                self.g, self.mode = g, capture_error_mode
            def __enter__(self):
                gc.collect()
                self.g.capture_begin(capture_error_mode=self.mode)
            def __exit__(self, *exc):
                self.g.capture_end()
    '''),
}
