"""cuda.core: Device.sync() while a graph builder captures.

Thread: NVIDIA/cuda-python PR #1235, "Implements GraphMemoryResource" (review: once an error is raised during
capturing "we cannot successfully end capturing"). A context synchronize is refused by a strict capture.
Fix: synchronize after graph.launch(stream).
"""
from cugraphlab.graphs.field_gallery._core import core, replay_and_check
from cugraphlab.graphs.field_gallery._field import fixed, inputs


def main() -> None:
    cc = core()
    dev = cc.Device(0)
    dev.set_current()
    stream = dev.create_stream()
    xh = inputs(1024)
    src = dev.allocate(xh.nbytes, stream=stream)
    dst = dev.allocate(xh.nbytes, stream=stream)
    stream.sync()
    gb = dev.create_graph_builder()
    gb.begin_building("thread_local")  # doctor: capture
    dst.copy_from(src, stream=gb)
    if not fixed():
        dev.sync()  # doctor: here
    graph = gb.end_building().complete()
    replay_and_check(graph, stream, src, dst, xh, "copy by the replay")


if __name__ == "__main__":
    main()
