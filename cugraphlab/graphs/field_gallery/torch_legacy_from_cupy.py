"""CuPy captures on its default (blocking) stream; PyTorch, not told about it, works on the legacy stream.

Thread: cupy/cupy#6290, "Improve stream capture support" (which libraries can be called while CuPy captures).
PyTorch launches on its current stream, the legacy NULL stream, which would have to wait for the capturing
blocking stream: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT. Fix: give PyTorch the capturing stream
(torch.cuda.ExternalStream(s.ptr)), or capture on a non-blocking stream.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import (
    check,
    fixed,
    inputs,
    need_cupy,
    need_torch,
)


def main() -> None:
    torch = need_torch()
    cupy = need_cupy()
    xh = inputs(4096)
    a = torch.from_numpy(xh).cuda()
    torch.cuda.synchronize()
    s = cupy.cuda.Stream()  # CuPy's default: a blocking stream
    with s:
        s.begin_capture()  # doctor: capture
        if fixed():
            with torch.cuda.stream(torch.cuda.ExternalStream(s.ptr)):
                a.mul_(2.0)
        else:
            a.mul_(2.0)  # doctor: here
        graph = s.end_capture()
    graph.launch(s)
    s.synchronize()
    check("a * 2 by the replay", a.cpu().numpy(), xh * np.float32(2))


if __name__ == "__main__":
    main()
