"""Interop both ways without a GPU: streams wrapped from every shape other libraries use and handed out through
``__cuda_stream__``; foreign memory wrapped as a non-owning DeviceArray; DeviceArrays exported through DLPack with
the consumer's deleter honoured."""
from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest

from cugraphlab.core import interop
from cugraphlab.core.errors import InvalidArgumentError
from interop_fixtures import dev, drv  # noqa: F401  (the interop fake's fixtures)


# --- streams ---------------------------------------------------------------------------------------------------------
def _shapes():
    from fake_interop import AttributeProtocolStream, CupyLikeStream, ProtocolStream, TorchLikeStream

    return [("cuda.core (__cuda_stream__)", ProtocolStream), ("deprecated attribute", AttributeProtocolStream),
            ("torch (.cuda_stream)", TorchLikeStream), ("cupy (.ptr)", CupyLikeStream), ("int", int)]


@pytest.mark.parametrize("label,make", _shapes(), ids=[s[0] for s in _shapes()])
def test_stream_wrap_takes_every_shape_and_owns_nothing(drv, dev, label, make):
    from cugraphlab.core.stream import Stream

    foreign = make(0xBEEF00)
    s = Stream.wrap(foreign)
    assert int(s.handle) == 0xBEEF00 and s.__cuda_stream__() == (0, 0xBEEF00)
    assert not s.owned and s.device is dev  # the Device whose context is current
    s.synchronize()
    assert drv.synchronized == [0xBEEF00]
    made_streams = drv.live("stream")
    s.close()
    assert drv.live("stream") == made_streams and not drv.released_twice()  # nothing destroyed


def test_a_wrapped_stream_keeps_its_owner_until_closed(drv, dev):
    from cugraphlab.core.stream import Stream
    from fake_interop import ProtocolStream

    foreign = ProtocolStream(0x1234)
    ref = weakref.ref(foreign)
    s = Stream.wrap(foreign, device=dev)
    del foreign
    gc.collect()
    assert ref() is not None
    s.close()
    gc.collect()
    assert ref() is None


def test_an_own_stream_speaks_the_protocol_and_wraps_to_itself(drv, dev):
    from cugraphlab.core.stream import Stream

    with dev.create_stream() as s:
        assert s.__cuda_stream__() == (0, int(s.handle)) and s.owned
        assert Stream.wrap(s) is s
        assert interop.stream_handle(s) == int(s.handle)  # a cugraphlab Stream goes into other libraries too


@pytest.mark.parametrize("bad,match", [
    (object(), "not a stream: object"),
    (True, "cannot be a bool"),
    (-5, "address >= 0"),
    ("0x10", "not a stream: str"),
])
def test_what_is_not_a_stream_is_one_line(drv, dev, bad, match):
    from cugraphlab.core.stream import Stream

    with pytest.raises(InvalidArgumentError, match=match):
        Stream.wrap(bad)


def test_a_stream_protocol_of_another_version_is_refused(drv, dev):
    from cugraphlab.core.stream import Stream
    from fake_interop import ProtocolStream

    with pytest.raises(InvalidArgumentError, match="protocol version 1"):
        Stream.wrap(ProtocolStream(5, version=1))


def test_a_launch_takes_a_foreign_stream_and_events_record_on_one(drv, dev):
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs
    from fake_interop import TorchLikeStream

    class Kernel:
        name, handle = "k", 0xF00D

    launch = Launch(Kernel(), PackedArgs((), ()), LaunchConfig(1, 32), TorchLikeStream(0xCAFE))
    assert int(launch.stream.handle) == 0xCAFE and int(launch.call_args[8]) == 0xCAFE
    with dev.create_event() as e:
        e.record(TorchLikeStream(0xCAFE))


# --- foreign memory as a DeviceArray ----------------------------------------------------------------------------------
def test_wrap_views_foreign_memory_without_owning_it(drv, dev):
    from cugraphlab.core.memory import DeviceArray
    from fake_interop import CaiArray

    drv.devices[0x5000_0000] = 0
    foreign = CaiArray(0x5000_0000, shape=(4, 8), typestr="<f4")
    ref = weakref.ref(foreign)
    arr = DeviceArray.wrap(foreign)
    assert (arr.n, arr.dtype, arr.nbytes, arr.ptr, arr.owned) == (32, np.float32, 128, 0x5000_0000, False)
    assert arr.device is dev and arr.owner is foreign
    assert "wrapped, __cuda_array_interface__ v3" in repr(arr)
    out = arr.to_numpy()  # copies go through the wrapper's handle
    assert out.shape == (32,)
    del foreign
    gc.collect()
    assert ref() is not None
    freed = sum(drv.released.values())
    arr.close()
    gc.collect()
    assert ref() is None and sum(drv.released.values()) == freed  # nothing freed: the memory was never ours
    assert DeviceArray.wrap(dev.array(4)).owned  # a cugraphlab array wraps to itself


def test_wrap_refuses_host_other_devices_and_strided_views(drv, dev):
    from cugraphlab.core.memory import DeviceArray
    from fake_interop import CaiArray

    drv.devices[0x6000_0000] = 1
    with pytest.raises(InvalidArgumentError, match="host memory"):
        DeviceArray.wrap(np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="on CUDA device 1, not on device 0"):
        DeviceArray.wrap(CaiArray(0x6000_0000))
    with pytest.raises(InvalidArgumentError, match="not C-contiguous"):
        DeviceArray.wrap(CaiArray(0x6000_0000, shape=(2, 2), strides=(4, 8)), device=None)


# --- DLPack out ----------------------------------------------------------------------------------------------------
def _read_capsule(capsule):
    api = interop._capsules()
    name = api.get_name(capsule)
    return name, api.get_pointer(capsule, name)


def test_dlpack_export_describes_the_array_and_keeps_it_alive(drv, dev):
    arr = dev.array(12, "int16")
    ref = weakref.ref(arr)
    assert arr.__dlpack_device__() == (2, 0)
    capsule = arr.__dlpack__(stream=-1, max_version=(1, 2))
    name, address = _read_capsule(capsule)
    assert name == b"dltensor_versioned"
    m = interop._DLManagedTensorVersioned.from_address(address)
    t = m.dl_tensor
    assert (m.version.major, m.version.minor, m.flags) == (1, 0, 0)
    assert (t.data, t.device.device_type, t.device.device_id, t.ndim) == (arr.ptr, 2, 0, 1)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (0, 16, 1)  # kDLInt, 16 bits
    assert (t.shape[0], t.strides[0], t.byte_offset) == (12, 1, 0)
    assert drv.context_synchronized == 0  # stream=-1: no synchronization asked
    del arr
    gc.collect()
    assert ref() is not None, "an exported array must live until the consumer's deleter"
    del capsule, t, m  # never consumed: the capsule's destructor deletes the tensor
    gc.collect()
    assert ref() is None and address not in interop._exported


def test_a_consumer_renames_the_capsule_and_calls_the_deleter(drv, dev):
    arr = dev.array(4)
    capsule = arr.__dlpack__(stream=1)  # the legacy form, and a stream: the context is synchronized first
    assert drv.context_synchronized == 1
    name, address = _read_capsule(capsule)
    assert name == b"dltensor"
    m = interop._DLManagedTensor.from_address(address)
    assert (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits) == (2, 32)  # kDLFloat, 32 bits
    set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_SetName", ctypes.pythonapi))
    used = b"used_dltensor"
    assert set_name(capsule, used) == 0  # what torch / cupy do when they take it
    del capsule
    gc.collect()
    assert address in interop._exported  # consumed: the consumer owns it now
    interop._DELETER(m.deleter)(address)  # ...and calls the deleter when done
    assert address not in interop._exported


def test_dlpack_export_refusals_follow_the_protocol(drv, dev):
    arr = dev.array(4)
    with pytest.raises(BufferError, match="without a copy"):
        arr.__dlpack__(dl_device=(2, 1))
    with pytest.raises(BufferError, match="copy=True"):
        arr.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="other than 0"):
        arr.__dlpack__(stream=0)
    rec = dev.array(2, np.dtype([("a", "f4"), ("b", "f4")]))
    with pytest.raises(BufferError, match="no data type"):
        rec.__dlpack__()
    arr.__dlpack__(dl_device=(2, 0))  # its own device: fine


def test_round_trip_through_dlpack_wraps_the_same_memory(drv, dev):
    from cugraphlab.core.memory import DeviceArray
    from fake_interop import DlpackOf

    arr = dev.array(16, "float64")
    view = DeviceArray.wrap(DlpackOf(arr))
    assert (view.ptr, view.n, view.dtype, view.owned) == (arr.ptr, 16, np.float64, False)
    assert view.protocol == "__dlpack__ 1.0"
    view.close()
    gc.collect()
    assert not any(v[3] is arr for v in interop._exported.values())  # the capsule went with the view
