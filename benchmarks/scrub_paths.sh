#!/usr/bin/env bash
# Make the machine paths in result files (logs, JSON, notebooks) relative or placeholders, in place:
#     bash benchmarks/scrub_paths.sh [--strip PREFIX]... FILE...
# Always: any absolute path up to one of the repository's own folders becomes relative (.../cugraphlab/x.py ->
# cugraphlab/x.py), site-packages folders become <site-packages>/, a notebook kernel's cell file <notebook cell>,
# and $HOME/.cache/cugraphlab ~/.cache/cugraphlab. --strip PREFIX removes PREFIX as well (e.g. the device's output
# folder, as the command that made the files saw it: --strip "$OUT/res/" --strip "$OUT/").
set -eu
strips=()
while [ "${1:-}" = --strip ]; do strips+=("$2"); shift 2; done
p='[^][ "'"'"'(),:=<>]*'  # the characters of a path inside a log line or a JSON string
for f in "$@"; do
  b='\(^\|[ "'"'"'(=]\)'  # an absolute path starts a line or follows a space, a quote, "(" or "=" (never a URL's "//")
  args=(-e "s#$b/$p/site-packages/#\1<site-packages>/#g"
        -e "s#$b/$p/\(cugraphlab\|benchmarks\|tests\|notebooks\|examples\|kernels\|docs\)/#\1\2/#g"
        -e "s#$b/$p/ipykernel_[0-9]*/[0-9]*\.py#\1<notebook cell>#g"
        -e "s#$b/$p/\.cache/cugraphlab#\1~/.cache/cugraphlab#g")
  for s in "${strips[@]+"${strips[@]}"}"; do args+=(-e "s#${s//#/\\#}##g"); done
  sed -i "${args[@]}" "$f"
done
