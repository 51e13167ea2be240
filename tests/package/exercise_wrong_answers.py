"""A plausible wrong answer to every exercise of the course (34), keyed "NN-n" (notebook NN, exercise n): code run in
the solutions notebook right after the check of exercise n has passed on the solution, rebinding the answer's names
(notebook_runner.py's WRONG_ANSWERS). The check, run again, must reject it ("not right yet"); then the solution's
values are put back. Each is a mistake a student could make: a forgotten step, a swapped pair, the default scalar,
an output read without launching, a prediction from the wrong rule. On CPU only the checks that need no GPU run
(tests/package/test_course_setup.py); on the GPU all of them (tests/package/test_exercise_checks_gpu.py)."""

WRONG = {
    # 01: float64 arithmetic (NumPy's default) instead of float32 op by op
    "01-1": "my_chain = lambda x, y: np.maximum((x.astype(np.float64) + y) * 2 - y, 0)",
    # 01: the plain expression, which a compiler may fuse into one fma (the check allows fmad, as nvcc does)
    "01-2": '''axpy_source = r"""
extern "C" __global__ void axpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
"""''',
    # 01: a * x + y computed in float64 and rounded once (what a fused multiply-add gives), not NumPy's two roundings
    "01-3": "axpy_out = (1.5 * axpy_in[0].astype(np.float64) + axpy_in[1]).astype(np.float32)",
    # 02: the chain captured once (4 nodes), not twice
    "02-1": "twice = chain.capture()",
    # 02: the first replay's output kept for the second (as if the graph replayed the data it was captured with)
    "02-2": "two_replays = [two_replays[0], (*two_replays[1][:2], two_replays[0][2])]",
    # 03: four nodes and no edges (the edges forgotten)
    "03-1": '''late_edges = Graph(dev)
for L in chain.launches:
    cu("cuGraphAddKernelNode", late_edges.handle, None, 0, kernel_params(L))''',
    # 03: the scalar set after the node was added (the node keeps 2.0)
    "03-2": "scalar_out = cgl.reference(chain.ops, chain.x_host, chain.y_host, 2.0)",
    # 04: the fork edges counted as graph edges
    "04-1": "forkjoin_counts = lambda K, L: (K * L + 1, K * L + K)",
    # 04: the third branch never joined into the final sum
    "04-2": "three_out = np.add(a.expected(), b.expected(), dtype=np.float32)",
    # 05: +0.5 instead of -0.5
    "05-1": "half_out = cgl.reference(chain.ops, *(buf.to_numpy() for buf in bufs_b), 0.5)",
    # 05: the prediction "refused" (nodes paired by what they compute), while the driver updates
    "05-2": "reordered = (True, reordered[1])",
    # 06: "every allocation inside a capture is refused", the stream-ordered one too
    "06-1": 'alloc_ways = {"cuMemAlloc": "allocation", "cuMemAllocAsync": "allocation"}',
    # 06: the stream that was joined named as the one left behind
    "06-2": "second = side",
    # 07: rounded down: the graph has not paid for itself yet after that many replays
    "07-1": "break_even = lambda setup_us, eager_us, graph_us: None if eager_us <= graph_us else "
            "int(setup_us // (eager_us - graph_us))",
    # 07: one batch's buffers unrolled four times (the last chain's output for every batch)
    "07-2": "batch_outs = [batch_outs[-1]] * 4",
    # 08: a fit through every point, the bent small graphs included
    "08-1": "fit_line = lambda nodes, us: tuple(np.polyfit(nodes, us, 1)[::-1])",
    # 08: each branch one add short (15 adds)
    "08-2": "branch_outs = [expected(15) for _ in range(4)]",
    # 09: the reference left in (it is no way of running the kernel)
    "09-1": "cheapest = lambda rec, clock: 'reference'",
    # 09: a kernel that adds instead of multiplying, measured with a check that compares out with itself
    "09-2": '''_bad = dev.load_module(cgl.compile_source(SCALE.replace("a * x[i]", "a + x[i]"), "scale"))
_bad_launch = _bad.kernel("scale").prepare(("ptr", "ptr", "f32", "u64"), (out, x, np.float32(3.0), N),
                                           (cgl.grid_for(N, 256, dev.sm_count), 256), stream)
mine = (cgl.measure(_bad_launch, ways=("eager",), prepare=scale_prepare,
                    check=lambda: compare_bits("scale", out.to_numpy(stream=stream), out.to_numpy(stream=stream))),
        _bad_launch)''',
    # 10: the body run once before the test (a do-while)
    "10-1": "while_runs = lambda default, limit: max(limit, 1)",
    # 10: one iteration predicted for a default of 0
    "10-2": "zero_count = 1",
    # 10: the ELSE body never taken
    "10-3": "if_else_marks = (1, 1)",
    # 11: the scheduler counted once per iteration
    "11-1": "device_launches = lambda shape, n: n - 1 if shape == 'self' else n",
    # 11: one run short
    "11-2": "alone = (36, 0)",
    # 12: compiled without -DCGL_PDL: no trigger, no wait
    "12-1": '''pdl_ptx = {arch: bytes(cgl.compile_source(cuda_source("add.cu"), "add", arch=arch, kind="ptx",
                                            headers={"elementwise.cuh": cuda_source("elementwise.cuh")}).image).decode()
           for arch in ("sm_90", "sm_80")}''',
    # 12: the output read without launching anything
    "12-2": "pdl_many = lambda iterations: pdl.chain.out.to_numpy()",
    # 13: an empty node between every two stages, also where it adds edges (1 to N)
    "13-1": "fewest_edges = lambda stages: sum(a + b for a, b in zip(stages, stages[1:]))",
    # 13: the chain's own graph (kernel nodes), not two child-graph nodes
    "13-2": "twice_parent = chain.capture()",
    # 14: "a second launch just works"
    "14-1": 'second_error = "CUDA_SUCCESS"',
    # 14: one address for both (as if t3 reused t1's memory while t1 is alive)
    "14-2": "overlap_addresses = (overlap_addresses[0], overlap_addresses[0])",
    # 15: the old scalar (the update did not carry it)
    "15-1": "updated_out = cgl.reference(chain.ops, chain.x_host, chain.y_host, 2.0)",
    # 15: the executable never pointed at the new buffer (a replay still reads chain.x)
    "15-2": "moved_out = cgl.reference(chain.ops, chain.x_host, chain.y_host, chain.scalar)",
    # 16: the elements rounded up to whole blocks of 256, not each dimension to whole tiles
    "16-1": "idle_threads = lambda rows, cols: -(rows * cols) % 256",
    # 16: the step with the original weights (the node never pointed at the halved ones)
    "16-2": "halved_out = mlp_ref(xs_host[0])",
}
