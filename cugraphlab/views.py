"""What the commands show: the text of ``run``, ``info`` and ``compile`` built from library results."""
from __future__ import annotations

from .report import fmt_count, format_table

__all__ = ["render_run", "render_info", "render_compile"]


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
                     "bit-exact" if m.verified else f"FAILED ({m.mismatches} bad)"])
    table = format_table(["mode", "kernels/iter", "total s", "us/iter", "p5-p95", "device us/iter", "us/kernel",
                          "speedup", "vs NumPy"], rows, align="llrrrrrrl")
    from .chain import FUSED_PER_GRAPH
    from .environment import versions_line

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
    return "\n".join([head, "", table, "", versions_line(result.env), *notes])


def render_info(ordinal: int | None) -> str:
    from .compiler import default_cache, nvrtc_version, supported_archs
    from .driver import Device, device_count, driver_version
    from .environment import driver_release, package_versions

    count = device_count()
    indices = [ordinal] if ordinal is not None else list(range(count))
    rows = []
    for i in indices:
        with Device(i) as d:
            free, total = d.memory_info()
            rows.append([i, d.name, d.arch, d.sm_count, f"{total / 2**30:.1f} GiB", f"{free / 2**30:.1f} GiB",
                         f"{d.attribute('CLOCK_RATE') / 1e6:.2f} GHz",
                         f"{d.attribute('L2_CACHE_SIZE') / 2**20:.0f} MiB"])
    p = package_versions()
    cache = default_cache()
    lines = [
        format_table(["device", "name", "arch", "SMs", "memory", "free", "SM clock", "L2"], rows),
        "",
        f"driver: {driver_release() or '?'} (CUDA {'%d.%d' % driver_version()}), {count} device(s)",
        f"cuda-bindings {p['cuda-bindings']}, NVRTC {'%d.%d' % nvrtc_version()} "
        f"(archs: {', '.join(f'sm_{a}' for a in supported_archs())})",
        f"numpy {p['numpy']}, cupy {p.get('cupy-cuda13x') or p.get('cupy-cuda12x') or 'not installed'}, "
        f"torch {p['torch'] or 'not installed'}, cugraphlab {p['cugraphlab']}",
        f"compile cache: {cache.folder if cache.enabled else 'off'}",
    ]
    return "\n".join(lines)


def render_compile(arch: str | None, ptx: bool, use_cache: bool) -> str:
    from .compiler import Cache, compile_source, default_cache, nvrtc_version, resolve_arch
    from .errors import NoDeviceError
    from .sources import kernel_names, read_headers, read_source

    note = ""
    cc = None
    if arch is None:
        try:
            from .driver import Device

            with Device(0) as d:
                cc = d.compute_capability
            note = f"for device 0 ({'sm_%d%d' % cc})"
        except NoDeviceError:
            note = "no GPU found: compiling for the newest arch NVRTC knows (pass --arch to choose)"
    target, kind = resolve_arch(arch, cc, ptx)
    cache = default_cache() if use_cache else Cache(None)
    headers = read_headers()
    rows, total_ms = [], 0.0
    for name in kernel_names():
        c = compile_source(read_source(name), name, arch=target, kind=kind, headers=headers, cache=cache)
        regs = ", ".join(f"{v}" for v in c.registers.values()) or "-"
        rows.append([name, c.kind, c.arch, fmt_count(len(c.image)), regs, "hit" if c.cache_hit else "miss",
                     f"{c.seconds * 1e3:.1f}"])
        total_ms += c.seconds * 1e3
    table = format_table(["kernel", "kind", "arch", "bytes", "registers", "cache", "ms"], rows)
    foot = (f"NVRTC {'%d.%d' % nvrtc_version()}, {len(rows)} kernels in {total_ms:.1f} ms; "
            f"cache: {cache.folder if cache.enabled else 'off'}")
    return "\n".join(x for x in (f"cugraphlab compile {note}".rstrip(), "", table, "", foot) if x is not None)
