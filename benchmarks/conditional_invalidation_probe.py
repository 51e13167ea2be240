"""What the driver does after a capture into a conditional body is invalidated, each variant in its own process.

A graph gets an IF node; its body is filled by cuStreamBeginCaptureToGraph, and a cuStreamSynchronize inside the
capture invalidates it (the field gallery's cgl_conditional_body). Then the variant tears down one way:

    destroy     cuGraphDestroy(parent) at once, context current
    leak        the parent never destroyed; the context released; normal exit
    nodes       cuGraphGetNodes of body and parent printed, then cuGraphDestroy(parent)
    node_first  cuGraphDestroyNode(the IF node), then cuGraphDestroy(parent)
    plain       the same mistake in a capture into a plain graph (no conditional node), then cuGraphDestroy
    clean       no mistake (the fixed twin), then cuGraphDestroy(parent)

Raw cuda.bindings.driver, no cugraphlab objects, so that the driver's behaviour is seen alone.

Usage: python3 benchmarks/conditional_invalidation_probe.py            every variant, a child process each
       python3 benchmarks/conditional_invalidation_probe.py VARIANT    one variant in this process
Prints one line per variant: its exit code and last output line.
"""
import subprocess
import sys

VARIANTS = ("destroy", "leak", "nodes", "node_first", "plain", "clean")
SRC = b'extern "C" __global__ void twice(float* y, const float* x, int n)' \
      b'{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }'


def ok(result):
    err, *rest = result
    if int(err) != 0:
        raise RuntimeError(f"{err!r}")
    return rest[0] if len(rest) == 1 else tuple(rest)


def one(variant: str) -> None:
    from cuda.bindings import driver as d
    from cuda.bindings import nvrtc as r

    say = lambda *a: print(variant + ":", *a, flush=True)  # noqa: E731
    ok(d.cuInit(0))
    dev = ok(d.cuDeviceGet(0))
    ctx = ok(d.cuDevicePrimaryCtxRetain(dev))
    ok(d.cuCtxSetCurrent(ctx))
    prog = ok(r.nvrtcCreateProgram(SRC, b"t.cu", 0, [], []))
    cc = [ok(d.cuDeviceGetAttribute(getattr(d.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{k}"), dev))
          for k in ("MAJOR", "MINOR")]
    ok(r.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{cc[0]}{cc[1]}".encode()]))
    size = ok(r.nvrtcGetCUBINSize(prog))
    cubin = b" " * size
    ok(r.nvrtcGetCUBIN(prog, cubin))
    mod = ok(d.cuModuleLoadData(cubin))
    fn = ok(d.cuModuleGetFunction(mod, b"twice"))
    n = 4096
    x = ok(d.cuMemAlloc(4 * n))
    y = ok(d.cuMemAlloc(4 * n))
    s = ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING))
    import ctypes

    import numpy as np
    hx = np.random.default_rng().standard_normal(n).astype(np.float32)
    ok(d.cuMemcpyHtoD(x, hx.ctypes.data, 4 * n))
    args = [ctypes.c_void_p(int(y)), ctypes.c_void_p(int(x)), ctypes.c_int(n)]
    ptrs = (ctypes.c_void_p * 3)(*[ctypes.addressof(a) for a in args])
    parent = ok(d.cuGraphCreate(0))
    node = None
    if variant == "plain":
        body = parent
    else:
        h = ok(d.cuGraphConditionalHandleCreate(parent, ctx, 1, int(d.CU_GRAPH_COND_ASSIGN_DEFAULT)))
        p = d.CUgraphNodeParams()
        p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        p.conditional.handle = h
        p.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
        p.conditional.size = 1
        p.conditional.ctx = ctx
        node = ok(d.cuGraphAddNode(parent, None, None, 0, p))
        body = p.conditional.phGraph_out[0]
    ok(d.cuStreamBeginCaptureToGraph(s, body, None, None, 0,
                                     d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED))
    ok(d.cuLaunchKernel(fn, n // 256, 1, 1, 256, 1, 1, 0, s, ctypes.addressof(ptrs), 0))
    if variant != "clean":
        say("synchronize inside the capture:", d.cuStreamSynchronize(s)[0])
    end = d.cuStreamEndCapture(s)
    say("cuStreamEndCapture:", end[0], "graph", int(end[1]) if end[1] is not None else None,
        "body", int(body), "parent", int(parent))
    if variant == "nodes":
        for name, g in (("body", body), ("parent", parent)):
            say(name, "cuGraphGetNodes:", d.cuGraphGetNodes(g, 0)[0:2:1])
    if variant == "node_first":
        say("cuGraphDestroyNode(IF):", d.cuGraphDestroyNode(node)[0])
    if variant != "leak":
        say("cuGraphDestroy(parent) ...")
        say("cuGraphDestroy(parent):", d.cuGraphDestroy(parent)[0])
    ok(d.cuStreamDestroy(s))
    ok(d.cuMemFree(x))
    ok(d.cuMemFree(y))
    ok(d.cuModuleUnload(mod))
    ok(d.cuDevicePrimaryCtxRelease(dev))
    say("end of script")


def main() -> int:
    if len(sys.argv) == 2:
        one(sys.argv[1])
        return 0
    bad = 0
    for v in VARIANTS:
        p = subprocess.run([sys.executable, "-X", "faulthandler", __file__, v], capture_output=True, text=True,
                           timeout=60, check=False)
        out = (p.stdout + p.stderr).strip().splitlines()
        print(f"--- {v}: exit {p.returncode}")
        print("\n".join("    " + ln for ln in out[-12:]))
        bad += p.returncode != 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
