"""The floor studies of issue 18 in one process (about a minute on an H200; budget 150 s): docs/studies/floor.md's
TO MEASURE items, every chain row checked bit-exact against NumPy, device time from CUDA events unless a row says.

1. placement     the same chain graph on 12 fresh Chains (same kernels and stream, fresh buffers), 1,024 and 2^20
                 floats, rotated interleaved rounds: per-chain medians, spread between chains against within one,
                 each chain's buffer addresses (studies.floor.placement). Runs first: the process is fresh.
1b. placement_pdl  issue 18's device-bound goals over placements: plain, PDL and PDL-early graphs (and at 1,024
                 graphs of 50 iterations) each on 8 fresh Chains, rotated rounds: the median placement against each
                 goal (studies.floor.placement_pdl).
2. boundary      graphs of 1, 10 and 50 unrolled iterations of one chain, interleaved: t(1) - t(50) and the boundary
                 beyond an edge, B - g, without stamps (studies.floor.shapes.measure_boundary).
3. gap_grid      the empty kernel as 1 vs 4 chained nodes (per graph and unrolled x25) at five shapes; the chain's
                 kernels at grids 1 / 132 / 264 / 1024 of 256 threads at 2^20; %globaltimer gaps of those shapes.
4. fused_shapes  the DRAM and L2 copy roofs, then the fused kernel at 2^20 over block 128/256/512 x 1/2/4/8/32
                 blocks per SM, warm and cold L2 (rotating input sets): any shape <= 2.1 us warm? cold against
                 the DRAM copy roof.
5. l2_read       kernels/l2read.cu over 8 / 12 / 24 MiB (and 256 MiB: DRAM) read again and again, five shapes,
                 each result exact against NumPy (studies.floor.l2_roof): an L2 read roof of our own.

Usage (repo root, package installed):  python3 benchmarks/studies/floor/run_studies.py OUT_DIR [--quick] [--only S ...]
Writes OUT_DIR/floor_studies.log (everything printed) and OUT_DIR/floor_studies.json (the record: rows with raw
samples, addresses, spreads, commit, GPU, driver and package versions). Exit 0: every section ran and every check
passed; 1 otherwise (a failed section is recorded with its error and the others still run).
"""
from __future__ import annotations

import argparse
import sys as _sys
import time
import traceback
from pathlib import Path
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))  # benchmarks/, where the studies package lives

import cugraphlab as cgl
from cugraphlab.bench.records.environment import collect
from cugraphlab.bench.records.record import clocks
from cugraphlab.core.files import write_json
from studies.floor.record import SECTIONS, FloorStudiesResult
from studies.floor.report_studies import render_floor_studies

OPS = ("add", "mul", "sub", "relu")

#: Iterations and rounds per section: (full, --quick).
PLAN = {
    "placement": ({"iters": 2000, "rounds": 15, "chains": 12}, {"iters": 200, "rounds": 3, "chains": 3}),
    "placement_pdl": ({"iters": 2000, "rounds": 9, "chains": 8}, {"iters": 200, "rounds": 3, "chains": 2}),
    "boundary": ({"iters": 1000, "rounds": 15}, {"iters": 100, "rounds": 3}),
    "gap_grid": ({"empty_iters": 2000, "rounds": 11, "target_ms": 8.0, "timeline_iters": 10},
                 {"empty_iters": 200, "rounds": 3, "target_ms": 1.0, "timeline_iters": 3}),
    "fused_shapes": ({"iters": 2000, "rounds": 9}, {"iters": 200, "rounds": 3}),
    "l2_read": ({"rounds": 9, "target_ms": 4.0}, {"rounds": 3, "target_ms": 0.5}),
}


def roofs(dev) -> dict:
    """The DRAM and L2 copy roofs, measured as studies.floor.measure.measure_floor does (events around
    cuMemcpyDtoDAsync)."""
    from cugraphlab.bench.probes.copy_roof import CopyProbe, copy_bandwidth

    l2 = int(dev.attribute("L2_CACHE_SIZE"))
    dram = copy_bandwidth(dev)
    with CopyProbe(dev, max(l2 // 4, 1 << 20) // 16 * 16, copies=100) as probe:
        l2_roof = probe.summary([probe.sample() for _ in range(5)])
    return {"dram_gbps": dram.gbps.median, "dram_bytes": dram.nbytes, "l2_gbps": l2_roof.gbps.median,
            "l2_copy_bytes": l2_roof.nbytes, "l2_bytes": l2, "dram_copy": dram.to_dict(), "l2_copy": l2_roof.to_dict()}


def run_section(name: str, dev, kernels, result: FloorStudiesResult, opts: dict, say) -> None:
    from studies.floor.l2_roof import measure_l2_read
    from studies.floor.placement import measure_placement
    from studies.floor.placement_pdl import measure_placement_pdl
    from studies.floor.shapes import measure_boundary, measure_fused_shapes, measure_gap_grid

    if name == "placement":
        measure_placement(dev, result, kernels=kernels, ops=OPS, say=say, **opts)
    elif name == "placement_pdl":
        measure_placement_pdl(dev, result, kernels=kernels, ops=OPS, say=say, **opts)
    elif name == "boundary":
        measure_boundary(dev, result, kernels=kernels, ops=OPS, say=say, **opts)
    elif name == "gap_grid":
        measure_gap_grid(dev, result, kernels=kernels, ops=OPS, say=say, **opts)
    elif name == "fused_shapes":
        r = roofs(dev)
        result.sections["roofs"] = r
        say(f"roofs: DRAM copy {r['dram_gbps']:,.0f} GB/s, L2 copy {r['l2_gbps']:,.0f} GB/s")
        measure_fused_shapes(dev, result, kernels=kernels, ops=OPS, dram_gbps=r["dram_gbps"], say=say, **opts)
    elif name == "l2_read":
        measure_l2_read(dev, result, say=say, **opts)
    else:
        raise ValueError(name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for floor_studies.log and floor_studies.json (made if missing)")
    ap.add_argument("--quick", action="store_true", help="few iterations and rounds (a smoke run)")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections (in the usual order)")
    args = ap.parse_args()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sections = [s for s in SECTIONS if not args.only or s in args.only]
    log: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        log.append(line)

    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    plan = {s: PLAN[s][1 if args.quick else 0] for s in sections}
    result = FloorStudiesResult(config={"ops": list(OPS), "sections": sections, "quick": args.quick, "plan": plan,
                                        "seconds": seconds},
                                clocks=clocks("device", "globaltimer", "copy"))
    failed = []
    with cgl.Device(args.device) as dev:
        result.env = collect(dev)
        from cugraphlab.experiment.chain import chain_kernels

        with chain_kernels(dev, OPS) as kernels:
            seconds["compile"] = time.perf_counter() - t0
            for name in sections:
                t = time.perf_counter()
                say(f"[{name}] start")
                try:
                    run_section(name, dev, kernels, result, plan[name], say)
                except Exception as e:  # record it, go on: one H200 run should bring back every section it can
                    failed.append(name)
                    result.sections.setdefault("errors", {})[name] = "".join(
                        traceback.format_exception_only(type(e), e)).strip()
                    say(f"[{name}] FAILED: {result.sections['errors'][name]}")
                    say(traceback.format_exc())
                seconds[name] = time.perf_counter() - t
                say(f"[{name}] {seconds[name]:.1f} s")
    seconds["total"] = time.perf_counter() - t0
    text = render_floor_studies(result)
    say("")
    say(text)
    ok = not failed and result.verified
    say(f"\n{'every section ran, every check passed' if ok else 'FAILED: ' + ', '.join(failed or ['a check'])}; "
        f"{seconds['total']:.1f} s")
    (out / "floor_studies.log").write_text("\n".join(log) + "\n")
    write_json(str(out / "floor_studies.json"), result.to_dict())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
