"""The line naming what a measurement ran on (GPU, driver, versions, commit), from a result's environment record."""
from __future__ import annotations

__all__ = ["versions_line"]


def versions_line(env: dict) -> str:
    """One line naming GPU, driver and versions, for the foot of a table."""
    p = env.get("packages", {})
    parts = []
    if "gpu" in env:
        g = env["gpu"]
        parts.append(f"{g['name']} (sm_{g['compute_capability'].replace('.', '')}, {g['sm_count']} SMs)")
        d = env.get("driver", {})
        parts.append(f"driver {d.get('release') or '?'} (CUDA {d.get('cuda')})")
    parts.append(f"cuda-bindings {p.get('cuda-bindings')}")
    parts.append(f"NVRTC {p.get('nvrtc')}")
    parts.append(f"numpy {p.get('numpy')}")
    parts.append(f"cugraphlab {p.get('cugraphlab')} @ {env.get('commit', 'unknown')[:12]}")
    parts.append(f"Python {p.get('python')}")
    return " | ".join(parts)
