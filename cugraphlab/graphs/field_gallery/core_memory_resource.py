"""cuda.core: the device's memory resource created lazily inside a thread-local capture.

Thread: NVIDIA/cuda-python#2834, "DeviceMemoryResource setup is refused under non-relaxed stream capture, and
tearing down the invalidated GraphBuilder segfaults": Device.allocate creates Device.memory_resource on first use,
whose cuMemPoolGetAttribute/SetAttribute a strict capture refuses. Fix: touch dev.memory_resource (and allocate)
before begin_building.
"""
from cugraphlab.graphs.field_gallery._core import core, replay_and_check
from cugraphlab.graphs.field_gallery._field import fixed, inputs


def main() -> None:
    cc = core()
    dev = cc.Device(0)
    dev.set_current()
    stream = dev.create_stream()
    xh = inputs(1024)
    if fixed():
        src = dev.allocate(xh.nbytes, stream=stream)
        dst = dev.allocate(xh.nbytes, stream=stream)
        stream.sync()
    gb = dev.create_graph_builder()
    gb.begin_building("thread_local")  # doctor: capture
    if not fixed():
        src = dev.allocate(xh.nbytes, stream=gb)  # doctor: here
        dst = dev.allocate(xh.nbytes, stream=gb)
    dst.copy_from(src, stream=gb)
    graph = gb.end_building().complete()
    replay_and_check(graph, stream, src, dst, xh, "copy by the replay")


if __name__ == "__main__":
    main()
