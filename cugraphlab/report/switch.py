"""What ``cugraphlab switch`` shows, from its record (bench.graphs.switch.SwitchResult): pure text, no device."""
from __future__ import annotations

from .env import versions_line
from .tables import fmt_count, format_table

__all__ = ["render_switch"]


def _status(ok: bool, mismatches: int) -> str:
    return "bit-exact" if ok else f"FAILED ({mismatches} bad)"


def _bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if abs(n) >= 2**20 else f"{n:,} B"


def _shown(flag: bool) -> str:
    return "shown" if flag else "not shown"


def _diff(d: dict | None, unit: str = "us", digits: int = 2, scale: float = 1.0) -> str:
    """A paired difference (bench.stats.paired_diff.PairedDifference.to_dict) in words."""
    if not d:
        return "no paired rounds"
    f = f"{{:+.{digits}f}}"
    return (f"{f.format(d['median'] / scale)} {unit} [{f.format(d['lo'] / scale)}, {f.format(d['hi'] / scale)}], "
            f"{d['above']}/{d['n']} rounds above 0, sign p = {d['p_sign']:.2g}")


def _verdict(g: dict) -> str:
    """A claim's word with its reason: "shown" only where the data show it (an older record's "met" as it was)."""
    word = g.get("verdict") or _shown(g.get("shown", g.get("met", False)))
    return f"{word} ({g['reason']})" if g.get("reason") else word


def render_switch(result) -> str:
    """The rows (device and host µs per launch), what K sizes cost to hold, the checks and the three claims."""
    c = result.config
    k = c["branches"]
    head = (f"cugraphlab switch: {c['chain']}, {k} branches, {fmt_count(c['iters'])} launches per timed loop x "
            f"{c['repeats']} repeats")
    variants = "; ".join(f"{i}: {name} ({v})" for i, (name, v) in enumerate(zip(c["variant_names"], c["variants"])))
    lines = [head, f"bodies of the SWITCH: {variants}", ""]
    for group, title in (("branches", "One graph, several bodies: what choosing costs per launch"),
                         ("sizes", f"One SWITCH graph for {k} sizes against one graph per size"),
                         ("sweep", "Taking the SWITCH apart: identical chain bodies, one thing changed at a time")):
        rows = []
        for r in (r for r in result.rows if r.group == group):
            d, h = r.device_us, r.host_us
            rows.append([r.name, f"{d.median:.2f}", f"{d.p5:.2f}-{d.p95:.2f}", f"{h.median:.2f}", r.how,
                         _status(r.verified, r.mismatches)])
        if rows:
            heads = ["graph", "device us", "p5-p95", "host us", "what it holds", "vs NumPy"]
            lines += [title + ":", format_table(heads, rows, align="lrrrll"), ""]
    contrasts = result.contrasts()
    if contrasts:
        rows = [[x["label"], f"{x['median']:+.2f}", f"{x['lo']:+.2f} .. {x['hi']:+.2f}", f"{x['above']}/{x['n']}",
                 f"{x['p_sign']:.2g}", {"same": "none shown", "lower": "A < B", "higher": "A > B"}[x["direction"]]]
                for x in contrasts]
        lines += ["Paired contrasts, A - B in device us per launch (median of per-round differences, 95% bootstrap "
                  "interval, rounds with A > B, exact sign test):",
                  format_table(["A - B", "median", "interval", "A > B", "sign p", "difference"], rows,
                               align="lrrrrl"), ""]
    claims = result.claims()
    if result.holding:
        batch = result.holding[0].batch
        measurable = claims.get("sizes_memory", {}).get("measurable", True)
        rows = []
        for h in result.holding:
            shown = _bytes(int(round(h.memory_mean_per_set))) if measurable else f"< {_bytes(int(h.memory_resolution))}"
            rows.append([h.name, h.execs, h.nodes, f"{h.instantiate_us.median:.1f}",
                         f"{h.instantiate_us.p5:.1f}-{h.instantiate_us.p95:.1f}", shown])
        copies = f"{batch} cop{'y' if batch == 1 else 'ies'}"
        lines += [f"Holding {k} sizes ready (instantiate: {c['holding_repeats']} rounds; memory: {copies} of each set "
                  f"added per round, all held; per copy of the set):",
                  format_table(["set", "execs", "nodes", "instantiate us", "p5-p95", "device memory"], rows,
                               align="lrrrrr")]
        lines += [f"({result.holding[0].note})", ""] if result.holding[0].note else [""]
    notes = [f"device us: {result.clocks['device']}, per launch; host us: {result.clocks['host_call']} (the "
             f"enqueue loop alone; it waits only when the launch queue is full).",
             f"instantiate us: {result.clocks['host_api']}, the set summed, averaged over the copies held; device "
             f"memory: free memory (cuMemGetInfo) before minus after the copies' instantiate + upload, summed over the "
             f"rounds, over every copy made (the driver reports no device memory per executable; cuMemGetInfo moves "
             f"in pages).",
             "Every timed loop ran on fresh random inputs with every output poisoned; after it, the chosen body's "
             "output had to be bit-exact and every other body's output untouched."]
    if "switch_vs_one_if" in claims:
        g = claims["switch_vs_one_if"]
        ratio = f"{g['ratio']:.3f}x" if g["ratio"] is not None else "n/a"
        notes.append(f"Claim, SWITCH over {k} branches no dearer than one IF node (device): {g['switch_us']:.2f} "
                     f"against {g['if_us']:.2f} us ({ratio}); SWITCH - IF per round "
                     f"{_diff(g.get('difference'))}: {_verdict(g)}.")
    if "sizes_instantiate" in claims:
        gi, gm = claims["sizes_instantiate"], claims["sizes_memory"]
        notes.append(f"Claim, one SWITCH for {k} sizes cheaper to instantiate than {k} graphs: {gi['switch_us']:.1f} "
                     f"against {gi['graphs_us']:.1f} us; SWITCH - graphs per round "
                     f"{_diff(gi.get('difference'), digits=1)}: {_verdict(gi)}.")
        if gm["measurable"]:
            notes.append(f"Claim, one SWITCH for {k} sizes holds less device memory than {k} graphs: "
                         f"{_bytes(int(gm['switch_per_set']))} against {_bytes(int(gm['graphs_per_set']))} per copy; "
                         f"SWITCH - graphs per round {_diff(gm.get('difference'), 'KiB', 1, 1024.0)}: "
                         f"{_verdict(gm)}.")
        else:
            notes.append(f"Claim, one SWITCH for {k} sizes holds less device memory than {k} graphs: "
                         f"not measurable by cuMemGetInfo ({gm['reason']}).")
    checks = [("ok   " if ch["ok"] else "FAIL ") + ch["text"] for ch in result.checks]
    return "\n".join([*lines, versions_line(result.env), *notes, "", "Each graph run once on fresh inputs:",
                      *checks])
