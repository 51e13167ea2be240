"""A stand-in for cupti-python's ``cupti.cupti`` (the callback API only) and a capture fake driver that reports
its calls to it, for the CUPTI mode's CPU tests.

``FakeCupti`` records subscribe / enable_domain / unsubscribe in ``.log``; ``busy_holder`` makes subscribe fail as
CUPTI does when another subscriber (a profiler) holds the process. ``CuptiCaptureDriver`` is the capture-aware fake
driver whose every cu* function, while someone is subscribed, calls the callback at API entry and exit with the
function's name, its result (through a pointer, like ``functionReturnValue``) and its stream (through a params
object, like ``functionParams``), in the calling thread. ``foreign(name, *args)`` makes a call as another library
would: past cugraphlab's door. ``runtime(name, code)`` plays a CUDA runtime API call (CuPy's cudaDeviceSynchronize).
"""
from __future__ import annotations

import ctypes
import enum
import itertools

import capture_driver
import fake_driver
from capture_driver import CaptureFakeDriver
from cugraphlab.graphs.doctor.cupti import treat_as_library

for _path in (__file__, capture_driver.__file__, fake_driver.__file__):  # the fakes stand for C: not user frames
    treat_as_library(_path)


class CallbackDomain(enum.IntEnum):
    INVALID = 0
    DRIVER_API = 1
    RUNTIME_API = 2


class ApiCallbackSite(enum.IntEnum):
    API_ENTER = 0
    API_EXIT = 1


class Result(enum.IntEnum):
    SUCCESS = 0
    ERROR_INVALID_PARAMETER = 1
    ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39


class cuptiError(Exception):
    def __init__(self, status):
        self.status = status
        super().__init__(f"CUPTI error {status}")


class CallbackData:
    def __init__(self, site, name, params_ptr, ret_ptr):
        self.callback_site = site
        self.function_name = name
        self.function_params = params_ptr
        self.function_return_value = ret_ptr


class _Params:
    """A params struct: ``from_ptr`` looks the object up by its fake address."""

    table: dict = {}

    def __init__(self, h_stream):
        self.h_stream = h_stream

    @classmethod
    def from_ptr(cls, ptr, readonly=False, owner=None):
        return cls.table[ptr]


class SubscriberParams:
    def __init__(self):
        self.struct_size = 0
        self.subscriber_name = ""
        self.old_subscriber_name = ""
        self.ptr = id(self)


class FakeCupti:
    """``from cupti import cupti`` for the tests."""

    CallbackDomain = CallbackDomain
    ApiCallbackSite = ApiCallbackSite
    Result = Result
    cuptiError = cuptiError
    SubscriberParams = SubscriberParams
    SUBSCRIBER_PARAMS_SIZE = 64

    def __init__(self):
        self.log: list[tuple] = []
        self.callback = None
        self.handle = None
        self.enabled: set[int] = set()
        self.busy_holder: str | None = None
        self.fail_enable = False
        self._handles = itertools.count(0x7000)
        self._params_ids = itertools.count(0x9000)
        self._params_by_id = {}

    # --- the callback API ------------------------------------------------------------------------------------
    def subscribe_v2(self, callback, userdata, p_params):
        self.log.append(("subscribe",))
        if self.busy_holder is not None or self.handle is not None:
            params = next((p for p in _live_params if p.ptr == p_params), None)
            if params is not None:
                params.old_subscriber_name = self.busy_holder or "earlier subscriber"
            raise cuptiError(Result.ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        self.callback, self.handle = callback, next(self._handles)
        return self.handle

    def enable_domain(self, enable, subscriber, domain):
        self.log.append(("enable_domain", int(enable), int(domain)))
        if subscriber != self.handle:
            raise cuptiError(Result.ERROR_INVALID_PARAMETER)
        if self.fail_enable:
            raise cuptiError(Result.ERROR_INVALID_PARAMETER)
        (self.enabled.add if enable else self.enabled.discard)(int(domain))

    def unsubscribe(self, subscriber):
        self.log.append(("unsubscribe",))
        if subscriber != self.handle:
            raise cuptiError(Result.ERROR_INVALID_PARAMETER)
        self.callback, self.handle, self.enabled = None, None, set()

    def get_timestamp(self):
        return 1

    def __getattr__(self, name):  # CuLaunchKernelParams, CuStreamSynchronizeParams, ...
        if name.startswith("Cu") and name.endswith("Params"):
            return _Params
        raise AttributeError(name)

    # --- what the driver does while subscribed -------------------------------------------------------------------
    @property
    def subscribed(self) -> bool:
        return self.handle is not None

    def report(self, name: str, code: int, stream=None, domain=CallbackDomain.DRIVER_API) -> None:
        """The entry and the exit callback of one API call, in this thread."""
        if self.callback is None or int(domain) not in self.enabled:
            return
        ret = ctypes.c_int(int(code))
        pid = next(self._params_ids)
        _Params.table[pid] = _Params(stream)
        try:
            for site in (ApiCallbackSite.API_ENTER, ApiCallbackSite.API_EXIT):
                self.callback(None, domain, 0, CallbackData(site, name, pid,
                                                            ctypes.addressof(ret) if site else 0))
        finally:
            del _Params.table[pid]


_live_params: list = []
_orig_sp_init = SubscriberParams.__init__


def _sp_init(self):
    _orig_sp_init(self)
    _live_params.append(self)


SubscriberParams.__init__ = _sp_init


class CuptiCaptureDriver(CaptureFakeDriver):
    """The capture fake driver reporting each cu* call to ``cupti`` (a FakeCupti) while it is subscribed."""

    VERSIONED = {"cuMemAlloc": "cuMemAlloc_v2", "cuMemcpyHtoD": "cuMemcpyHtoD_v2", "cuMemcpyDtoH": "cuMemcpyDtoH_v2",
                 "cuMemFree": "cuMemFree_v2"}

    def __init__(self, cupti: FakeCupti, **kw):
        super().__init__(**kw)
        self.cupti = cupti

    def __getattribute__(self, name):
        attr = object.__getattribute__(self, name)
        if not name.startswith("cu") or not callable(attr):
            return attr
        cupti = object.__getattribute__(self, "cupti")
        if not cupti.subscribed:
            return attr

        def reported(*args):
            from cugraphlab.graphs.doctor import stream_of

            result = attr(*args)
            status = result[0] if isinstance(result, tuple) else result
            cupti.report(CuptiCaptureDriver.VERSIONED.get(name, name), int(status), stream_of(name, args))
            return result

        return reported

    def foreign(self, name: str, *args):
        """A call made past cugraphlab's door (CuPy, PyTorch, raw cuda.bindings)."""
        return getattr(self, name)(*args)

    def runtime(self, name: str, code: int, stream=None) -> None:
        """A CUDA runtime call as CUPTI reports it (the runtime's effect on captures is played by the caller)."""
        self.cupti.report(name, code, stream, CallbackDomain.RUNTIME_API)
