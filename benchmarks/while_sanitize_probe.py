"""One WHILE loop of the chain, decision separate or folded (argument: 0 or 1), for compute-sanitizer to watch alone.

Usage: compute-sanitizer --tool memcheck python3 benchmarks/while_sanitize_probe.py 1 [N_FLOATS] [ITERATIONS]
Prints the loop's check; exits 1 when it is not bit-exact or the count is wrong.
"""
import sys

from cugraphlab import Chain, Device
from cugraphlab.experiment.conditional import conditional_graphs


def main() -> int:
    fold = sys.argv[1] == "1"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with Device(0) as dev, dev.load_kernels() as ks, Chain(dev, n=n, kernels=ks) as chain:
        kit = conditional_graphs(chain)
        c = kit.run_while(iterations, fold=fold)
        st = kit.read_state()
        print(f"fold={fold}: {c}; count {st.count}, keep_going {st.keep_going}")
        return 0 if c.ok and st.count == iterations else 1


if __name__ == "__main__":
    sys.exit(main())
