#!/usr/bin/env bash
# Round 6, call 2: does the graph row of `cugraphlab run` move with the renovation, or with the chunk samples the
# diff work added (9 more CUDA events per timed loop)? Three rounds, each in fresh processes, alternated:
# the tree before the renovation (BEFORE=DIR, d33c16d), this tree with --chunks 1 (the loop alone), this tree as
# it ships (10 chunks). Usage (repo root): BEFORE=.carry/old bash .../chunks_check.sh OUT_LOG
set -u
out=${1:?usage: BEFORE=DIR bash chunks_check.sh OUT_LOG}
for round in 1 2 3; do
  for size in 1024 2^20; do
    echo "=== before (d33c16d) $size round $round" >> "$out"
    (cd "$BEFORE" && python3 -m cugraphlab run --size "$size") >> "$out" 2>&1
    echo "=== after, --chunks 1 $size round $round" >> "$out"
    python3 -m cugraphlab run --size "$size" --chunks 1 >> "$out" 2>&1
    echo "=== after, 10 chunks (default) $size round $round" >> "$out"
    python3 -m cugraphlab run --size "$size" >> "$out" 2>&1
  done
done
