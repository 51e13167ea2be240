"""One WHILE loop of the chain, one body alone, for compute-sanitizer to watch.

BODY: 0 (separate decision kernel), 1 (decision folded into relu), pdl (folded, -DCGL_PDL kernels joined by
programmatic edges, captured into the body), pdl-nodes (the same built node by node with edge data). EVERY K > 1:
K chain iterations per body with one decision counting K ("decision every K iterations"; with BODY 1, pdl or
pdl-nodes; ITERATIONS must be a multiple of K).

Usage: compute-sanitizer --tool memcheck python3 benchmarks/while_sanitize_probe.py BODY [N_FLOATS] [ITERATIONS]
       [EVERY]
(racecheck and synccheck likewise). Prints the loop's check; exits 1 when it is not bit-exact or the count is wrong,
2 when the driver refuses the body (one line).
"""
import sys

from cugraphlab import Chain, Device
from cugraphlab.core.errors import CugraphlabError
from cugraphlab.experiment.conditional import conditional_graphs

BODIES = {"0": {}, "1": {"fold": True}, "pdl": {"fold": True, "pdl": True, "how": "capture"},
          "pdl-nodes": {"fold": True, "pdl": True, "how": "nodes"}}


def parse(argv: list[str]) -> tuple[str, dict, int, int]:
    """(body, run_while keywords, floats, iterations) from the command line; ValueError on a bad one."""
    if not argv or argv[0] not in BODIES:
        raise ValueError(f"BODY must be one of {', '.join(BODIES)}")
    kw = dict(BODIES[argv[0]])
    n = int(argv[1]) if len(argv) > 1 else 4096
    iterations = int(argv[2]) if len(argv) > 2 else 5
    every = int(argv[3]) if len(argv) > 3 else 1
    if every != 1:
        if argv[0] == "0":
            raise ValueError("EVERY needs a folded body (BODY 1, pdl or pdl-nodes)")
        kw["every"] = every
    return argv[0], kw, n, iterations


def main() -> int:
    try:
        body, kw, n, iterations = parse(sys.argv[1:])
    except ValueError as e:
        print(f"{e}\n{__doc__}", file=sys.stderr)
        return 2
    with Device(0) as dev, dev.load_kernels() as ks, Chain(dev, n=n, kernels=ks) as chain:
        kit = conditional_graphs(chain)
        try:
            c = kit.run_while(iterations, **kw)
        except CugraphlabError as e:  # a refused body (ProgrammaticEdgesRefused) or a count K does not divide
            print(f"{body} {kw}: {e}", file=sys.stderr)
            return 2
        st = kit.read_state()
        print(f"{body} {kw}: {c}; count {st.count}, keep_going {st.keep_going}")
        return 0 if c.ok and st.count == iterations else 1


if __name__ == "__main__":
    sys.exit(main())
