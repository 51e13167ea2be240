"""The text of ``run``, ``info`` and ``compile``, built from their records (never touches the GPU)."""
from __future__ import annotations

from ..experiment.ops import FUSED_PER_GRAPH
from .env import versions_line
from .tables import bit_exact_cell, fmt_count, format_table

__all__ = ["render_run", "roof_lines", "render_info", "render_compile", "render_versions_fit"]


def render_run(result) -> str:
    """The run table, the environment line, the clocks used and how to read the figures."""
    c = result.config
    head = (f"cugraphlab run: {c['chain']}, {fmt_count(c['iters'])} iterations x {c['repeats']} repeats "
            f"(grid {c['grid']} x {c['block']} threads)")
    rows = []
    for m in result.modes:
        w, d = m.wall_us_per_iter, m.device_us_per_iter
        rows.append([m.mode, m.kernels_per_iter, f"{m.total_s:.4f}", f"{w.median:.2f}", f"{w.p5:.2f}-{w.p95:.2f}",
                     f"{d.median:.2f}", f"{m.us_per_kernel:.2f}", f"{m.speedup_vs_eager:.2f}x",
                     bit_exact_cell(m.verified, m.mismatches)])
    table = format_table(["mode", "kernels/iter", "total s", "us/iter", "p5-p95", "device us/iter", "us/kernel",
                          "speedup", "vs NumPy"], rows, align="llrrrrrrl")
    eager, graph = result.mode("eager"), result.mode("graph")
    fused = result.mode("fused")
    notes = [
        f"wall: {result.clocks['wall']}; device: {result.clocks['device']}.",
        f"Medians of {c['repeats']} repeats; each repeat draws fresh random inputs and poisons the outputs first.",
        (f"eager: {eager.kernels_per_iter} cuLaunchKernel calls per iteration, "
         f"{eager.us_per_kernel:.2f} us each from Python; graph: one cuGraphLaunch per iteration "
         f"({graph.speedup_vs_eager:.2f}x eager); fused: the same math in one kernel, replayed from graphs of "
         f"{FUSED_PER_GRAPH} so the host is not the limit: the floor ({fused.wall_us_per_iter.median:.2f} us/iter)."),
    ]
    notes += roof_lines(getattr(result, "roof", None))
    return "\n".join([head, "", table, "", versions_line(result.env), *notes])


def roof_lines(roof: dict | None) -> list[str]:
    """The fused rows' bytes/s against the device copy roof (``run --cold-l2``), or nothing."""
    if not roof:
        return []
    mib = 2 ** 20
    warm, cold, copy = roof["fused_gbps"], roof["fused_cold_gbps"], roof["copy_gbps"]
    above = ("above the copy roof: its inputs come from L2, it does not beat HBM"
             if warm > copy else "below the copy roof")
    return [
        (f"fused moves {roof['bytes_per_iter'] / mib:.1f} MiB per launch (x, y read, out written): warm L2 "
         f"{warm:,.0f} GB/s ({roof['fused_vs_roof']:.0%} of the copy roof, {above}); cold L2 {cold:,.0f} GB/s "
         f"({roof['fused_cold_vs_roof']:.0%} of the copy roof, {copy:,.0f} GB/s device-to-device)."),
        (f"cold L2: {roof['sets']} {roof['method'].split(' (')[0]} of {roof['bytes_per_iter'] / mib:.1f} MiB = "
         f"{roof['rotation_bytes'] / mib:.0f} MiB against an L2 of {roof['l2_bytes'] / mib:.0f} MiB; GB/s = bytes / "
         f"device us per iteration."),
    ]


def render_info(info: dict) -> str:
    """The devices table and the driver / versions / cache lines, from ``bench.records.environment.system_info()``."""
    rows = [[d["index"], d["name"], d["arch"], d["sm_count"], f"{d['memory_bytes'] / 2**30:.1f} GiB",
             f"{d['free_bytes'] / 2**30:.1f} GiB", f"{d['clock_khz'] / 1e6:.2f} GHz",
             f"{d['l2_bytes'] / 2**20:.0f} MiB"] for d in info["devices"]]
    p = info["packages"]
    drv = info["driver"]
    lines = [
        format_table(["device", "name", "arch", "SMs", "memory", "free", "SM clock", "L2"], rows),
        "",
    ] if rows else []
    lines += [
        (f"driver: {drv['release'] or '?'} (CUDA {drv['cuda']}), {info['device_count']} device(s)"
         if drv.get("cuda") else "driver: none answered (see the last line)"),
        f"cuda-bindings {p['cuda-bindings'] or 'not installed'}, NVRTC {info['nvrtc']} "
        f"(archs: {', '.join(f'sm_{a}' for a in info['archs']) or 'none'})",
        f"numpy {p['numpy']}, cupy {p.get('cupy-cuda13x') or p.get('cupy-cuda12x') or 'not installed'}, "
        f"torch {p['torch'] or 'not installed'}, cugraphlab {p['cugraphlab']}",
        f"compile cache: {info['cache'] or 'off'}",
    ]
    if info.get("cuda"):
        lines += render_versions_fit(info["cuda"], drv["release"])
    return "\n".join(lines)


def render_versions_fit(fit: dict, driver_release: str | None = None) -> list[str]:
    """The CUDA lines of `cugraphlab info`: what each piece speaks, and whether they suit each other."""
    driver = "none found" if fit.get("driver_cuda") is None else (
        f"CUDA {fit['driver_cuda']}" + (f" (driver {driver_release})" if driver_release else ""))
    head = (f"CUDA: cuda-bindings {fit['bindings']} (CUDA {fit['bindings_cuda']}, cu{fit['bindings_major']}), "
            f"NVRTC {fit.get('nvrtc') or 'not found'}, driver {driver}")
    if fit.get("fit") is None:
        verdict = "fit: not judged (no driver)"
    elif fit["fit"]:
        verdict = f"fit: yes (for this driver cu{fit['bindings_major']} is right"
        verdict += ")" if fit.get("extra_for_driver") == f"cu{fit['bindings_major']}" else \
            f"; {fit['extra_for_driver']} would be too)"
    else:
        verdict = "fit: NO"
    return [head, verdict] + [f"  - {p}" for p in fit.get("problems", [])]


def render_compile(report) -> str:
    """The compile table (kind, arch, size, registers, cache hit, time per source) from a core CompileReport."""
    rows, total_ms = [], 0.0
    for c in report.compiled:
        # by kernel name: the log lists them in NVRTC's order, the cache's metadata in its own
        regs = ", ".join(f"{v}" for _, v in sorted(c.registers.items())) or "-"
        rows.append([c.name, c.kind, c.arch, fmt_count(len(c.image)), regs, "hit" if c.cache_hit else "miss",
                     f"{c.seconds * 1e3:.1f}"])
        total_ms += c.seconds * 1e3
    table = format_table(["kernel", "kind", "arch", "bytes", "registers", "cache", "ms"], rows)
    foot = (f"NVRTC {report.nvrtc}, {len(rows)} kernels in {total_ms:.1f} ms; "
            f"cache: {report.cache_folder or 'off'}")
    head = f"cugraphlab compile: {report.note}" if report.note else "cugraphlab compile"
    return "\n".join((head, "", table, "", foot))
