"""Example 13: the capture doctor. Why did my capture fail, and which line did it?
The course teaches it in notebooks/06_capture_doctor.ipynb (the course's own order: docs/course/course.md).

    with capture(stream, explain=True) as cap:    # cuStreamBeginCapture, then after every driver call:
        ...                                       #   cuStreamIsCapturing on each stream of the capture
        stream.synchronize()                      # <- refused: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    cap.diagnosis                                 # the call, its line, the class of mistake and the fix

A second capture does the same work correctly (no sync inside) and the doctor finds nothing; the graph replays.
Run (with the package installed): python3 examples/13_doctor.py   (or: cugraphlab doctor examples/13_doctor.py)

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    mistake: a synchronizing call inside the capture
      call:  cuStreamSynchronize(<CUstream 0x2a27fbb0>) -> CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
      where: examples/13_doctor.py:34, in main
      state: stream 0x2a27fbb0: ACTIVE -> INVALIDATED
      fix:   Move the wait out of the capture: synchronize before cuStreamBeginCapture or after the graph has been launched (sync the replay, not the recording). To order work between streams inside a capture, record an event and cuStreamWaitEvent on it instead of waiting on the host. Values the host needs (a loss, a count) must be read after a replay, or kept on the device (a conditional node decides on the device).
    correct capture: 0 findings, graph with 2 nodes replayed
"""
import sys

import cugraphlab as cgl
from cugraphlab.graphs import capture


def main() -> int:
    with cgl.Device(0) as dev, dev.load_kernels(names=["empty"]) as ks, dev.create_stream() as stream:
        empty = ks["empty"].prepare((), (), ((1,), (1,)), stream)

        bad = capture(stream, explain=True)
        try:
            with bad:
                empty()
                stream.synchronize()  # the mistake: nothing has run yet, there is nothing to wait for
                empty()
        except cgl.CaptureError:
            pass
        f = bad.diagnosis.first
        print(f"mistake: {f.mistake.title}")
        print(f"  call:  {f.call}({f.args}) -> {f.result}")
        print(f"  where: {f.where}")
        print(f"  state: {f.status_change}")
        print(f"  fix:   {f.mistake.fix}")

        good = capture(stream, explain=True)
        with good:
            empty()
            empty()
        with good.graph as graph, graph.instantiate() as exe:
            exe.launch(stream)
            stream.synchronize()
            print(f"correct capture: {len(good.diagnosis.findings)} findings, graph with {graph.node_count} "
                  f"nodes replayed")
        named = f.call == "cuStreamSynchronize" and f.kind == "sync" and "13_doctor.py" in f.where
        return 0 if named and not good.diagnosis.findings else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
