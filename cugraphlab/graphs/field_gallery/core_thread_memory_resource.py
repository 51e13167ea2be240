"""cuda.core: another thread's first allocation creates the memory resource while a global capture runs.

Thread: NVIDIA/cuda-python#2918 (with #2834: "A global capture on another thread is invalidated too"; captures
started by other libraries, PyTorch's in global mode, are hit the same way). Fix: capture in thread-local (or
relaxed) mode. Creating the memory resource first (touching dev.memory_resource) is not enough alone: on the H200
the worker's allocation from the resource made before the capture (cuMemAllocFromPoolAsync on its own stream) was
refused by the global capture too; the fixed twin does both.
"""
import threading

from cugraphlab.graphs.field_gallery._core import core, replay_and_check
from cugraphlab.graphs.field_gallery._field import fixed, inputs


def worker(dev, stream, got: list) -> None:
    dev.set_current()
    buf = dev.allocate(1 << 20, stream=stream)  # doctor: here
    got.append(buf)


def main() -> None:
    cc = core()
    dev = cc.Device(0)
    dev.set_current()
    stream, other = dev.create_stream(), dev.create_stream()
    xh = inputs(1024)
    if fixed():
        _ = dev.memory_resource  # created before any capture
    src = dev.allocate(xh.nbytes, stream=stream) if fixed() else _plain(cc, dev, xh.nbytes)
    dst = dev.allocate(xh.nbytes, stream=stream) if fixed() else _plain(cc, dev, xh.nbytes)
    stream.sync()
    got: list = []
    gb = dev.create_graph_builder()
    gb.begin_building("thread_local" if fixed() else "global")  # doctor: capture
    dst.copy_from(src, stream=gb)
    t = threading.Thread(target=worker, args=(dev, other, got), name="worker")
    t.start()
    t.join()
    graph = gb.end_building().complete()
    replay_and_check(graph, stream, src, dst, xh, "copy by the replay")


def _plain(cc, dev, nbytes):
    """A buffer from cuMemAlloc (not the device's memory resource), so that the resource stays uncreated."""
    from cuda.bindings import driver

    err, ptr = driver.cuMemAlloc(nbytes)
    assert int(err) == 0, err
    return cc.Buffer.from_handle(int(ptr), nbytes)


if __name__ == "__main__":
    main()
