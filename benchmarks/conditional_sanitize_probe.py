"""One piece of the ``conditional`` command, alone, for compute-sanitizer: which piece ends in ILLEGAL_ADDRESS?

Round 4 saw ``cugraphlab conditional`` end with CUDA_ERROR_ILLEGAL_ADDRESS at cuMemFreeHost under memcheck only
(memcheck itself reported 0 errors), while WHILE loops run alone (while_sanitize_probe.py) passed. This script runs
one piece (argument STEP), then synchronizes the context after each phase (the piece, its executables' destruction,
the rest of the teardown) and prints which phase's cuCtxSynchronize first returned an error.

Usage: compute-sanitizer --tool memcheck python3 benchmarks/conditional_sanitize_probe.py STEP [N_FLOATS] [ITERATIONS]
STEP: while, fold, until, if1, if0, host, nodecision, unrolled, captured, built, measure (measure_while, small), all;
or seq:A,B,... (A, B from while, fold, host, graph): those launches back to back with no synchronization between them.
Exit 0 when every phase synchronized cleanly and every check passed; 1 otherwise.
"""
import sys

from cuda.bindings import driver as d

from cugraphlab import Chain, Device
from cugraphlab.bench.scripts import require_gpu, run_main
from cugraphlab.experiment.conditional import conditional_graphs

STEPS = ("while", "fold", "until", "if1", "if0", "host", "nodecision", "unrolled", "captured", "built", "measure")


def sync(phase: str) -> bool:
    (r,) = d.cuCtxSynchronize()
    print(f"  sync after {phase}: {r.name}", flush=True)
    return r == d.CUresult.CUDA_SUCCESS


def run_step(step: str, dev, chain, kit, iterations: int) -> bool:
    if step == "while":
        c = kit.run_while(iterations)
    elif step == "fold":
        c = kit.run_while(iterations, fold=True)
    elif step == "until":
        c = kit.run_until(50.0)
    elif step in ("if1", "if0"):
        c = kit.run_if(step == "if1")
    elif step == "host":
        got = kit.run_host_loop(iterations)
        c = f"host loop: {got} iterations (expected {iterations}); {chain.check_result('graph')}"
        print(f"  {c}", flush=True)
        return got == iterations and chain.check_result("graph").ok
    elif step == "nodecision":
        chain.randomize()
        chain.poison()
        chain.run("graph", iterations)
        c = chain.check_result("graph")
    elif step == "unrolled":
        chain.randomize()
        chain.poison()
        chain.run("graph", iterations, iterations)
        c = chain.check_result("graph")
    elif step == "captured":
        c = kit.run_while_captured(iterations, "body")
        print(f"  {c}", flush=True)
        c = kit.run_while_captured(iterations, "parent")
    elif step == "built":
        graph, _info = kit.build_while(iterations)
        graph.close()
        graph, _info = kit.build_while(iterations, fold=True)
        graph.close()
        print("  built and closed two WHILE graphs (no executable)", flush=True)
        return True
    else:
        raise SystemExit(f"unknown step {step!r}; one of {', '.join(STEPS)}, all")
    print(f"  {c}", flush=True)
    return bool(getattr(c, "ok", False))


def run_seq(names, chain, kit, iterations: int) -> bool:
    """Launches enqueued back to back as measure_while's warm-up does, then one sync and the state's count."""
    kit.fresh()
    stream = chain.stream
    for name in names:
        print(f"  enqueue {name}", flush=True)
        if name == "while":
            kit.while_exec(iterations).launch(stream)
        elif name == "fold":
            kit.while_exec(iterations, fold=True).launch(stream)
        elif name == "host":
            kit.run_host_loop(iterations)
        elif name == "graph":
            chain.run("graph", iterations)
        else:
            raise SystemExit(f"unknown launch {name!r}")
    ok = sync("the sequence " + ",".join(names))
    print(f"  count {kit.read_state().count}, {chain.check_result('graph')}", flush=True)
    return ok


def main() -> int:
    if len(sys.argv) < 2 or not all(a.isdigit() for a in sys.argv[2:4]):
        print(f"usage: {sys.argv[0]} STEP [N_FLOATS] [ITERATIONS]; STEP: {', '.join(STEPS)}, all, or seq:A,B,...",
              file=sys.stderr)
        return 2
    step = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    require_gpu(__file__)  # no GPU: one line, exit 2
    ok = True
    with Device(0) as dev:
        if step == "measure":
            from cugraphlab.bench.graphs.conditional import measure_while
            res = measure_while(dev, size=n, iters=iterations * 4, repeats=1, unroll=iterations)
            print(f"  measure_while: verified {res.verified}", flush=True)
            ok = res.verified and sync("measure_while (its chain closed)")
            print(f"{step}: {'ok' if ok else 'FAILED'}", flush=True)
            return 0 if ok else 1
        with dev.load_kernels() as ks, Chain(dev, n=n, kernels=ks) as chain:
            kit = conditional_graphs(chain)
            if step.startswith("seq:"):
                ok = run_seq(step[4:].split(","), chain, kit, iterations)
            for s in (STEPS[:-1] if step == "all" else () if step.startswith("seq:") else (step,)):
                print(f"step {s}:", flush=True)
                ok = run_step(s, dev, chain, kit, iterations) and ok
                ok = sync(s) and ok
            kit.execs.close()
            ok = sync("the executables destroyed") and ok
        ok = sync("chain and conditional kit closed (cuMemFreeHost included)") and ok
    print(f"{step}: {'ok' if ok else 'FAILED'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    run_main(main, __file__)
