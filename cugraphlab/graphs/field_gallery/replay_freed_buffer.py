"""cugraphlab: new data bound to the captured input's name; every replay still reads the buffer of the capture.

Thread: triton-lang/triton#3166 (CUDA graphs remove the launch overhead but "expect the tensors to be at the same
address and shape"), the same mistake without PyTorch: ``x = dev.to_device(new)`` makes a new buffer and frees the
captured one, whose address the executable keeps. Nothing fails; the replay reads freed memory, or whatever buffer
the driver hands that address to next. Fix: keep the captured buffer and copy the new data into it
(``x.copy_from(new)``). Small buffers (16 KiB here) come from the driver's sub-allocator, so the freed address
stays mapped and the broken run reads stale data rather than faulting.
"""
import numpy as np

import cugraphlab as cgl
from cugraphlab.graphs import capture
from cugraphlab.graphs.field_gallery._cgl import twice
from cugraphlab.graphs.field_gallery._field import check, fixed, inputs


def main() -> None:
    n = 4096
    with cgl.Device(0) as dev, dev.create_stream() as s:
        x, out = dev.to_device(inputs(n)), dev.array(n)
        launch = twice(dev, s, out, x, n)
        with capture(s) as cap:  # doctor: capture
            launch()
        with cap.graph as graph, graph.instantiate() as exe:
            for step in range(3):
                xh = inputs(n)
                if fixed():
                    x.copy_from(xh)
                else:
                    old, x = x, dev.to_device(xh)  # the name now holds a new buffer
                    old.close()  # the captured one is freed
                out.poison(stream=s)
                exe.launch(s)  # doctor: here
                got = out.to_numpy(stream=s)
                if fixed():
                    check(f"step {step}: 2 * x", got, xh * np.float32(2))
                else:
                    same = np.array_equal(got, xh * np.float32(2))
                    print(f"step {step}: the replay {'happened to read' if same else 'did not read'} the new data")
        x.close()


if __name__ == "__main__":
    main()
