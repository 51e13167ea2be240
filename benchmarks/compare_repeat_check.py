"""Do two ``compare`` records rank the stacks alike? The check of issue 14's first goal, on two runs made back to back.

For each size: both leaderboards side by side (rank, tie mark, median and 95% interval of the launch figure), then
every pair of lines that one run orders "measurably faster" (the whole interval below the other's): the other run
must not order them the other way round. A line may change rank where it, or a line its rank counts, is tied in one
of the runs (a rank is 1 + the number of lines measurably faster). Prints the tables and one verdict per size; exits
1 when a pair is ordered both ways.

Usage: python benchmarks/compare_repeat_check.py A.json B.json [--out LOG]
"""
from __future__ import annotations

import argparse
import sys

from cugraphlab.bench.compare.records import CompareResult
from cugraphlab.bench.diff import read_record_file
from cugraphlab.report.compare import leaderboard
from cugraphlab.report.tables import format_table


def _lines(result, size):
    return {f"{d['stack']} / {d['way']}": d for d in leaderboard(result, size) if d.get("launch") is not None}


def _faster(a, b) -> bool:
    return a["launch_hi"] is not None and b["launch_lo"] is not None and a["launch_hi"] < b["launch_lo"]


def check(a: CompareResult, b: CompareResult) -> tuple[list[str], bool]:
    out, ok = [], True
    for size in a.sizes:
        la, lb = _lines(a, size), _lines(b, size)
        names = [n for n in la if n in lb]
        rows = []
        for n in names:
            x, y = la[n], lb[n]
            cell = lambda d: f"{'=' if d['tied'] else ''}{d['rank']}"  # noqa: E731
            span = lambda d: f"{d['launch']:.2f} [{d['launch_lo']:.2f}, {d['launch_hi']:.2f}]"  # noqa: E731
            fa = {m for m in names if _faster(la[m], x)}
            fb = {m for m in names if _faster(lb[m], y)}
            why = "" if fa == fb else "; ".join(
                f"measurably faster in {side} only: {', '.join(sorted(m.split(' / ')[0] for m in ms))}"
                for side, ms in (("A", fa - fb), ("B", fb - fa)) if ms)
            rows.append([n, cell(x), span(x), cell(y), span(y), why])
        both_ways = [(p, q) for p in names for q in names
                     if _faster(la[p], la[q]) and _faster(lb[q], lb[p])]
        ok = ok and not both_ways
        out += [f"size {size:,} floats", format_table(["line", "rank A", "us/launch A [95%]", "rank B",
                                                      "us/launch B [95%]", "lines counted faster differ"], rows,
                                                     align="lrrrrl")]
        out.append(f"pairs ordered one way in A and the other in B: {len(both_ways)}"
                   + ("" if not both_ways else " (" + "; ".join(f"{p} vs {q}" for p, q in both_ways) + ")"))
        out.append("")
    out.append("verdict: " + ("no pair of lines is ordered both ways (a rank that moved counts a line that is tied in the other run)" if ok
                              else "CONTRADICTION: a pair of lines is ordered both ways"))
    return out, ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--out", help="also write the text here")
    args = ap.parse_args(argv)
    a, b = (CompareResult.from_dict(read_record_file(p)) for p in (args.a, args.b))
    lines, ok = check(a, b)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
