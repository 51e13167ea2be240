"""Example 12: device graph launch. Kernels launch the chain's graph from the GPU, and a loop drives itself.
The course teaches it in notebooks/11_device_launch.ipynb (the course's own order: docs/course/course.md).

    built once:   NVRTC -rdc=true -dlto (kernels/devlaunch.cu) -> LTO-IR -> nvJitLink + libcudadevrt.a -> cubin
    work graph W: add -> mul -> sub -> relu           cuGraphInstantiate(DEVICE_LAUNCH), cuGraphUpload
    launcher L:   dl_launch(W, cudaStreamGraphFireAndForget)   or   (W, cudaStreamGraphTailLaunch)
    self loop G:  add -> mul -> sub -> relu -> dl_relaunch      cudaGraphLaunch(cudaGetCurrentGraphExec(),
                                                                cudaStreamGraphTailLaunch) while count < N

One cuGraphLaunch of G runs the chain N times, each next iteration launched by the GPU itself. With ``feedback`` the
chain's last op writes x, so N iterations compute the chain applied N times, checked bit for bit against NumPy.
The loop is timed beside a graph of 50 unrolled iterations: a tail launch waits for the whole graph to finish and
then starts a new graph, which costs more than the next node of one graph.

Run (with the package installed; needs nvJitLink and libcudadevrt.a, e.g. pip install nvidia-cuda-runtime):
    python3 examples/12_device_launch.py

Expected output on the H200 (cu13 bindings, commit c7eec2f, 2026-12-01; figures and addresses vary between
runs, the checks do not):
    self loop G: 5 nodes, 4 edges
      [0] KERNEL:add
      [1] KERNEL:mul  <- 0
      [2] KERNEL:sub  <- 1
      [3] KERNEL:relu  <- 2
      [4] KERNEL:dl_relaunch  <- 3

    ok   fire-and-forget launch: 1 iteration(s) (expected 1), 1 device launch(es); fire-and-forget launch: bit-exact (1,024 elements)
    ok   tail launch: 1 iteration(s) (expected 1), 1 device launch(es); tail launch: bit-exact (1,024 elements)
    ok   self loop: 1000 iteration(s) (expected 1000), 999 device launch(es); self loop: bit-exact (1,024 elements)
    ok   scheduler loop: 1000 iteration(s) (expected 1000), 2000 device launch(es); scheduler loop: bit-exact (1,024 elements)
    ok   self loop (feedback): 30 iteration(s) (expected 30), 29 device launch(es); self loop (feedback): bit-exact (1,024 elements)

    device-driven loop: 8.65 us/iteration; unrolled graph x50: 5.04 us/iteration (CUDA events)
"""
import sys

import cugraphlab as cgl
from cugraphlab.experiment import device_loop

N = 1000
UNROLL = 50


def main() -> int:
    with cgl.Device(0) as dev, cgl.Chain(dev, n=1024) as chain:
        try:
            loop = device_loop(chain)  # builds and loads the relocatable kernels; closed with the chain
        except cgl.UnsupportedError as e:
            print(f"skipped: {e}")
            return 0
        with loop.build_self(N) as g:
            print("self loop G: " + g.topology().describe() + "\n")

        checks = [loop.run_launch("fire_and_forget"),  # W runs beside the launching kernel's graph
                  loop.run_launch("tail"),  # W runs once the launching graph is done
                  loop.run_loop("self", N),  # G relaunches itself until the counter reaches N
                  loop.run_loop("scheduler", N),  # a scheduler graph tail-launches W, then itself
                  loop.run_loop("self", 30, feedback=True)]  # x <- chain(x), 30 times, as NumPy says
        for c in checks:
            print(("ok   " if c.ok else "FAIL ") + str(c))

        s = chain.stream
        with dev.create_event() as e0, dev.create_event() as e1:
            exe = loop.self_exec(N)
            e0.record(s)
            loop.enqueue(exe)  # cuMemsetD32Async of the loop state, then one cuGraphLaunch: N iterations
            e1.record(s)
            e1.synchronize()
            device_us = e0.elapsed_us(e1) / N
            chain.run("graph", UNROLL)  # warm-up of the unrolled graph
            e0.record(s)
            chain.run("graph", N, UNROLL)  # N / 50 launches of a graph holding 50 iterations
            e1.record(s)
            e1.synchronize()
            unrolled_us = e0.elapsed_us(e1) / N
        print(f"\ndevice-driven loop: {device_us:.2f} us/iteration; unrolled graph x{UNROLL}: {unrolled_us:.2f} "
              f"us/iteration (CUDA events)")
        return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cgl.NoDeviceError as e:
        print(f"no usable GPU: {e}", file=sys.stderr)
        sys.exit(2)
