"""A correct cuda.core program: buffers and the memory resource made first, a copy captured by a graph builder
(relaxed, its default), the graph launched on fresh inputs.

The doctor must find nothing.
"""
from cugraphlab.graphs.field_gallery._core import core, replay_and_check
from cugraphlab.graphs.field_gallery._field import inputs


def main() -> None:
    cc = core()
    dev = cc.Device(0)
    dev.set_current()
    stream = dev.create_stream()
    n = 4096
    src = dev.allocate(4 * n, stream=stream)
    dst = dev.allocate(4 * n, stream=stream)
    stream.sync()
    gb = dev.create_graph_builder()
    gb.begin_building()  # doctor: capture
    dst.copy_from(src, stream=gb)
    graph = gb.end_building().complete()
    for _ in range(3):
        xh = inputs(n)
        replay_and_check(graph, stream, src, dst, xh, "copy by the graph")


if __name__ == "__main__":
    main()
