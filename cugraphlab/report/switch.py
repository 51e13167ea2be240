"""What ``cugraphlab switch`` shows, from its record (bench.switch.SwitchResult): pure text, no device."""
from __future__ import annotations

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_switch"]


def _status(ok: bool, mismatches: int) -> str:
    return "bit-exact" if ok else f"FAILED ({mismatches} bad)"


def _bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if abs(n) >= 2**20 else f"{n:,} B"


def _met(flag: bool) -> str:
    return "met" if flag else "NOT met"


def render_switch(result) -> str:
    """The rows (device and host µs per launch), what K sizes cost to hold, the checks and the goals."""
    c = result.config
    k = c["branches"]
    head = (f"cugraphlab switch: {c['chain']}, {k} branches, {fmt_count(c['iters'])} launches per timed loop x "
            f"{c['repeats']} repeats")
    variants = "; ".join(f"{i}: {name} ({v})" for i, (name, v) in enumerate(zip(c["variant_names"], c["variants"])))
    lines = [head, f"bodies of the SWITCH: {variants}", ""]
    for group, title in (("branches", "One graph, several bodies: what choosing costs per launch"),
                         ("sizes", f"One SWITCH graph for {k} sizes against one graph per size")):
        rows = []
        for r in (r for r in result.rows if r.group == group):
            d, h = r.device_us, r.host_us
            rows.append([r.name, f"{d.median:.2f}", f"{d.p5:.2f}-{d.p95:.2f}", f"{h.median:.2f}", r.how,
                         _status(r.verified, r.mismatches)])
        if rows:
            heads = ["graph", "device us", "p5-p95", "host us", "what it holds", "vs NumPy"]
            lines += [title + ":", format_table(heads, rows, align="lrrrll"), ""]
    if result.holding:
        rows = [[h.name, h.execs, h.nodes, f"{h.instantiate_us.median:.1f}",
                 f"{h.instantiate_us.p5:.1f}-{h.instantiate_us.p95:.1f}", _bytes(h.memory_median)]
                for h in result.holding]
        lines += [f"Holding {k} sizes ready ({c['holding_repeats']} repeats):",
                  format_table(["set", "execs", "nodes", "instantiate us", "p5-p95", "device memory"], rows,
                               align="lrrrrr"), ""]
    goals = result.goals()
    notes = [f"device us: {result.clocks['device']}, per launch; host us: {result.clocks['host_call']} (the "
             f"enqueue loop alone; it waits only when the launch queue is full).",
             f"instantiate us: {result.clocks['host_api']}, the set summed; device memory: free memory "
             f"(cuMemGetInfo) before minus after instantiate + upload, median.",
             "Every timed loop ran on fresh random inputs with every output poisoned; after it, the chosen body's "
             "output had to be bit-exact and every other body's output untouched."]
    if "switch_vs_one_if" in goals:
        g = goals["switch_vs_one_if"]
        ratio = f"{g['ratio']:.3f}x" if g["ratio"] is not None else "n/a"
        notes.append(f"Goal, SWITCH over {k} branches no dearer than one IF node (device): {g['switch_us']:.2f} "
                     f"against {g['if_us']:.2f} us ({ratio}): {_met(g['met'])}.")
    if "sizes_instantiate" in goals:
        gi, gm = goals["sizes_instantiate"], goals["sizes_memory"]
        notes.append(f"Goal, one SWITCH for {k} sizes cheaper than {k} graphs: instantiate {gi['switch_us']:.1f} "
                     f"against {gi['graphs_us']:.1f} us ({_met(gi['met'])}); memory {_bytes(gm['switch_bytes'])} "
                     f"against {_bytes(gm['graphs_bytes'])} ({_met(gm['met'])}).")
    checks = [("ok   " if ch["ok"] else "FAIL ") + ch["text"] for ch in result.checks]
    return "\n".join([*lines, versions_line(result.env), *notes, "", "Each graph run once on fresh inputs:",
                      *checks])
