"""Text of a paired measurement (``bench.paired.harness.PairedResult``, kind ``cugraphlab.paired``): pure, a record in, text out.

One row per way: µs per launch (median [95% interval]), its ratio to the bare binding in the same rounds [95%], the
held-device µs (the call alone, the stream held by a spin kernel), the difference to the C loop, how the figure
stopped, and how many samples ran below 75% of the rated SM clock. Then the C floor and what Python adds to it.
"""
from __future__ import annotations

import math

__all__ = ["render_paired"]


def _d(record) -> dict:
    return record.to_dict() if hasattr(record, "to_dict") else dict(record)


def _iv(v, fmt: str = "{:.3f}", none: str = "-") -> str:
    if not v:
        return none
    return f"{fmt.format(v['median'])} [{fmt.format(v['lo'])}, {fmt.format(v['hi'])}]"


def _stop(row: dict, target: float | None) -> str:
    stop, noise = row.get("stop", "?"), row.get("noise")
    noise_s = "?" if noise is None or not math.isfinite(noise) else f"±{noise * 100:.1f}%"
    if stop == "spread":
        return f"noise {noise_s} reached" + (f" (target ±{target * 100:g}%)" if target else "")
    if stop == "time_cap":
        return f"time cap, noise {noise_s} left"
    if stop == "max_samples":
        return f"max rounds, noise {noise_s} left"
    return stop


def render_paired(record) -> str:
    """The paired table of ``record`` (a PairedResult or its ``to_dict()``) as text."""
    d = _d(record)
    cfg = d.get("config", {})
    ref = d.get("reference", "bindings")
    ways = d.get("ways", [])
    headers = ["way", "us/launch median [95%]", f"ratio to {ref} [95%]", "held us/launch", "held ratio",
               "minus C, us", "stop", "SM clock"]
    table = []
    for w in ways:
        n_low = w.get("clock_low", 0)
        table.append([
            w["name"] + ("" if w.get("own") else " *"),
            _iv(w.get("us")),
            _iv(w.get("ratio"), "{:.4f}") if w["name"] != ref else "1 (reference)",
            _iv(w.get("held_us")),
            _iv(w.get("held_ratio"), "{:.4f}") if w["name"] != ref else "1",
            _iv(w.get("vs_c_us"), "{:+.3f}") if w.get("vs_c_us") else ("floor" if w["name"] == "c" else "-"),
            _stop(w, cfg.get("target")),
            f"{n_low} of {w.get('samples', 0)} low" if n_low else "ok",
        ])
    widths = [max(len(h), *(len(r[i]) for r in table)) if table else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip()  # noqa: E731
    out = []
    kind = cfg.get("context_kind", "?")
    out.append(f"Paired launch cost: {cfg.get('kernel', 'add')} on {cfg.get('size', '?'):,} floats, "
               f"{cfg.get('mode', 'launch')} mode, {len(d.get('contexts', []))} {kind} contexts, "
               f"{cfg.get('launches', '?'):,} launches per block, {cfg.get('held_launches', '?')} held")
    out.append(line(headers))
    out.append(line(["-" * w for w in widths]))
    out.extend(line(r) for r in table)
    c = next((w for w in ways if w["name"] == "c"), None)
    if c is not None and c.get("us"):
        c_us = c["us"]["median"]
        held = f", held {c['held_us']['median']:.3f} µs" if c.get("held_us") else ""
        out.append(f"C: {c_us:.3f} µs per launch{held} (the native floor, timed in C).")
        for w in ways:
            if w["name"] != "c" and w.get("vs_c_us"):
                v = w["vs_c_us"]
                out.append(f"  {w['name']}: Python adds {v['median']:.3f} µs per launch "
                           f"[{v['lo']:.3f}, {v['hi']:.3f}]")
    elif "c" in d.get("skipped", {}):
        out.append(f"C: not measured ({d['skipped']['c']}).")
    for name, why in d.get("skipped", {}).items():
        if name != "c":
            out.append(f"{name}: {why}")
    ctxs = d.get("contexts", [])
    if ctxs:
        fresh = [x.get("fresh") for x in ctxs]
        parts = [f"{x['index']}: {x['rounds']} rounds, {x['stop']}, {x['seconds']:.1f} s" for x in ctxs]
        out.append("Contexts " + "; ".join(parts) + ".")
        if kind == "primary" and any(f is False for f in fresh):
            out.append("Not every context was fresh: another holder (e.g. CuPy's runtime) kept the primary context "
                       "alive between them.")
    rated = d.get("rated_clock_mhz")
    low = sum(w.get("clock_low", 0) for w in ways)
    if rated:
        out.append(f"SM clock: rated {rated:.0f} MHz; {low} samples below {cfg.get('low_clock_fraction', 0.75):.0%} "
                   "of it." if low else f"SM clock: rated {rated:.0f} MHz; no sample below "
                   f"{cfg.get('low_clock_fraction', 0.75):.0%} of it.")
    if d.get("held_timeouts"):
        out.append(f"{d['held_timeouts']} held blocks ended by the spin kernel's timeout (their figures dropped).")
    if any(not w.get("own") for w in ways):
        out.append("* a third-party stack, sharing cugraphlab's context, cubin, buffers and stream.")
    out.append("Intervals: " + cfg.get("interval", "95% hierarchical bootstrap") + "; ratios and differences are "
               "taken within each round, then pooled. L2: " + cfg.get("l2", "?") + ".")
    return "\n".join(out)
