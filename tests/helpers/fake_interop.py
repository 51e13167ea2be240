"""Stand-ins for other libraries' arrays and streams (CuPy-, PyTorch-, cuda.core-, JAX-shaped), and a fake driver
that also answers the calls interop makes (pointer attributes, the current context, event times), with a log of
the streams it was asked to synchronize. No GPU and none of those libraries needed."""
from __future__ import annotations

import numpy as np
from cuda.bindings import driver as _real

from fake_driver import OK, FakeDriver


class InteropDriver(FakeDriver):
    """FakeDriver plus cuPointerGetAttribute (addresses in ``devices``: address -> ordinal), cuCtxGetCurrent /
    cuCtxGetDevice (``current``: the context made current last, or None), cuEventElapsedTime (``elapsed_ms``), and
    ``synchronized``: the int handles cuStreamSynchronize was called with."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.devices: dict[int, int] = {}
        self.current = None
        self.current_device = 0
        self.synchronized: list[int] = []
        self.context_synchronized = 0
        self.elapsed_ms = 1.25
        self.compute_capability = (9, 0)

    def cuPointerGetAttribute(self, attr, ptr):
        for base, ordinal in self.devices.items():
            if base <= int(ptr) < base + (1 << 20):
                return (OK, ordinal)
        return (_real.CUresult.CUDA_ERROR_INVALID_VALUE, None)

    def cuCtxSetCurrent(self, ctx):
        self.current = ctx
        return (OK,)

    def cuCtxGetCurrent(self):
        return (OK, self.current if self.current is not None else _real.CUcontext(0))

    def cuCtxGetDevice(self):
        return (OK, self.current_device)

    def cuDeviceGetAttribute(self, attr, dev):
        name = attr.name.replace("CU_DEVICE_ATTRIBUTE_", "")
        if name == "COMPUTE_CAPABILITY_MAJOR":
            return (OK, self.compute_capability[0])
        if name == "COMPUTE_CAPABILITY_MINOR":
            return (OK, self.compute_capability[1])
        return super().cuDeviceGetAttribute(attr, dev)

    def cuCtxSynchronize(self):
        self.context_synchronized += 1
        return (OK,)

    def cuStreamSynchronize(self, h):
        self.synchronized.append(int(h))
        return (OK,)

    def cuEventElapsedTime(self, start, end):
        return (OK, self.elapsed_ms)


class CaiArray:
    """A CuPy/Numba-shaped array: ``__cuda_array_interface__`` only."""

    def __init__(self, ptr, shape=(16,), typestr="<f4", strides=None, version=3, stream=None, **extra):
        self.cai = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False), "version": version,
                    "strides": strides, **extra}
        if stream is not None:
            self.cai["stream"] = stream

    @property
    def __cuda_array_interface__(self):
        return self.cai


class RefusingCai(CaiArray):
    """A torch-tensor-that-requires-grad shape: the interface raises, DLPack is the way (or not)."""

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad")


class DlpackOf:
    """A DLPack-only producer (JAX-shaped) re-exporting another producer's ``__dlpack__``; records the calls."""

    def __init__(self, inner, device=None, accepts_max_version=True):
        self.inner, self.device, self.accepts_max_version = inner, device, accepts_max_version
        self.calls = []

    def __dlpack_device__(self):
        return self.device if self.device is not None else self.inner.__dlpack_device__()

    def __dlpack__(self, *, stream=None, **kw):
        if kw and not self.accepts_max_version:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.calls.append({"stream": stream, **kw})
        return self.inner.__dlpack__(stream=stream, **kw)


class CpuDlpack:
    """A CPU array's DLPack face (a CPU torch tensor, a NumPy array seen through DLPack)."""

    def __init__(self):
        self.exported = False

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, **kw):  # never reached: the device is asked first
        self.exported = True
        return np.zeros(4).__dlpack__()


class ProtocolStream:
    """A cuda.core-shaped stream: ``__cuda_stream__()``."""

    def __init__(self, handle, version=0):
        self.h, self.version = handle, version

    def __cuda_stream__(self):
        return (self.version, self.h)


class AttributeProtocolStream:
    """The deprecated form: ``__cuda_stream__`` as an attribute."""

    def __init__(self, handle):
        self.__cuda_stream__ = (0, handle)


class TorchLikeStream:
    def __init__(self, handle):
        self.cuda_stream = handle


class CupyLikeStream:
    def __init__(self, handle):
        self.ptr = handle
