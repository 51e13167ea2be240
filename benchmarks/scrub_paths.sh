#!/usr/bin/env bash
# Replace machine paths in result files (logs, JSON, notebooks) with relative ones or placeholders, in place:
#     bash benchmarks/scrub_paths.sh FILE...
set -eu
for f in "$@"; do
  sed -i -e 's#/work/main/##g; s#/root/out/res/##g; s#/root/out/##g; s#/root/\.cache/cugraphlab#~/.cache/cugraphlab#g' \
         -e 's#/opt/torch/\.venv/lib/python3\.[0-9]*/site-packages/#<site-packages>/#g; s#/tmp/cu12/#<cu12>/#g' \
         -e 's#/tmp/site/#<site>/#g; s#/usr/lib/python3[^/ ]*/#<python-lib>/#g' \
         -e 's#/tmp/ipykernel_[0-9]*/[0-9]*\.py#<notebook cell>#g' "$f"
done
