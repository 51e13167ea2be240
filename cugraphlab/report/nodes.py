"""What ``cugraphlab nodes`` shows: the measured rows per lesson, the checks, and the facts worth reading."""
from __future__ import annotations

from .env import versions_line
from .tables import format_table

__all__ = ["render_nodes"]

_TITLES = {
    "host": "host nodes: device us per iteration of the chain's graph (the gap a host node adds)",
    "event": "event record nodes around each kernel: device us per kernel inside one launch",
    "child": "child graph nodes: the chain flat against nested",
    "controls": "node controls: enable/disable, set-params, exec update, re-instantiate; instantiate paths; "
                "priorities",
}


def _fact(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} {x:+.2f}" if isinstance(x, float) else f"{k} {x}" for k, x in v.items())
    return str(v)


def render_nodes(result) -> str:
    """A NodesResult (bench.graphs.nodes) or its dict as text: one table per lesson, then checks and facts."""
    d = result if isinstance(result, dict) else result.to_dict()
    c = d["config"]
    head = (f"cugraphlab nodes: {c.get('chain', '?')}, {c['repeats']} repeats, {c['iters']} launches per device "
            f"sample, {c['calls']} calls per host sample")
    out = [head]
    for lesson in c.get("lessons", []):
        rows = [r for r in d["rows"] if r["lesson"] == lesson]
        if not rows:
            continue
        table = [[r["label"], f"{r['summary']['median']:.2f}", f"{r['summary']['p5']:.2f}-{r['summary']['p95']:.2f}",
                  r["clock"], r.get("note", "")] for r in rows]
        out += ["", _TITLES.get(lesson, lesson), format_table(["row", "median us", "p5-p95", "clock", "how"], table,
                                                             align="lrrll")]
    checks = d.get("checks", [])
    bad = [ch for ch in checks if not ch["ok"]]
    out += ["", f"checks: {len(checks) - len(bad)} of {len(checks)} ok (bit-exact against NumPy unless said)"]
    out += [f"  FAIL {ch['text']}" for ch in bad]
    if d.get("facts"):
        out += ["", "facts:"] + [f"  {k}: {_fact(v)}" for k, v in d["facts"].items()]
    clocks = d.get("clocks", {})
    out += ["", "clocks: " + "; ".join(f"{k} = {v}" for k, v in clocks.items())]
    if d.get("env"):
        out.append(versions_line(d["env"]))
    return "\n".join(out)
