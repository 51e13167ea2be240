"""What a measurement ran on: GPU, driver, package versions, commit. Every result record carries this."""
from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from ..._version import __version__

__all__ = ["package_versions", "commit", "driver_release", "collect", "system_info"]


def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def why_unavailable(e: BaseException) -> str:
    """Why a library could not be used, in words rather than the exception's class name."""
    from ...core.errors import CugraphlabError

    if isinstance(e, ImportError):
        return "cuda-bindings is not installed"
    if type(e).__name__.endswith("NotFoundError") or "not found" in str(e).lower():
        return "its library was not found"
    if isinstance(e, CugraphlabError) and str(e):
        import re

        return re.sub(r"\s*\([^)]*\)", "", str(e).splitlines()[0].split(":")[0])
    return "its library could not be loaded"


def package_versions() -> dict[str, str | None]:
    """Versions of the packages that matter here (None: not installed). torch is looked up, never imported."""
    out = {"cugraphlab": __version__, "python": platform.python_version()}
    for name in ("cuda-bindings", "numpy", "cupy-cuda13x", "cupy-cuda12x", "torch", "matplotlib"):
        out[name] = _dist_version(name)
    try:
        from ...core.program import nvrtc_version

        out["nvrtc"] = "%d.%d" % nvrtc_version()
    except Exception as e:  # no NVRTC library: say so rather than fail a report
        out["nvrtc"] = f"unavailable ({why_unavailable(e)})"
    return out


def commit() -> str:
    """The git commit of the source tree, $CUGRAPHLAB_COMMIT, or "unknown" (an installed wheel has no .git)."""
    env = os.environ.get("CUGRAPHLAB_COMMIT")
    if env:
        return env
    here = Path(__file__).resolve().parent.parent
    try:
        r = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if r.returncode == 0 and r.stdout.strip():
            dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            return r.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def driver_release() -> str | None:
    """The NVIDIA driver's release string (e.g. "580.159.04") from NVML or nvidia-smi, if either answers."""
    try:
        from cuda.bindings import nvml

        nvml.init_v2()
        try:
            v = nvml.system_get_driver_version()
            return v.decode() if isinstance(v, bytes) else str(v)
        finally:
            nvml.shutdown()
    except Exception:
        pass
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=10)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def collect(device=None) -> dict:
    """The environment record: time, host, packages, commit and, with a device, the GPU and driver."""
    env = {
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "commit": commit(),
        "packages": package_versions(),
    }
    from ...experiment.runners import LAUNCH_DELAY_ENV, launch_delay_ns

    delay = launch_delay_ns()
    if delay:  # the test hook of experiment.runners: a record made with it says so
        env["injected"] = {"launch_delay_ns": delay, "how": f"${LAUNCH_DELAY_ENV}: a busy-wait after every launch"}
    if device is not None:
        from ...core.device import driver_version

        major, minor = device.compute_capability
        env["gpu"] = {
            "name": device.name,
            "ordinal": device.ordinal,
            "compute_capability": f"{major}.{minor}",
            "sm_count": device.sm_count,
            "memory_bytes": device.total_memory,
        }
        env["driver"] = {"cuda": "%d.%d" % driver_version(), "release": driver_release()}
        from ...core._calls import versions_fit

        env["cuda"] = versions_fit()
    return env


def system_info(ordinal: int | None = None) -> dict:
    """What ``cugraphlab info`` shows: every device (or one) with its attributes and free memory, the driver, the
    package versions, NVRTC and the archs it knows, the compile cache folder and which extra fits. Without a driver
    or a device, everything that needs none is still there and ``driver_error`` says why the rest is missing."""
    from ...core._calls import versions_fit
    from ...core.cache import default_cache
    from ...core.device import Device, device_count, driver_version
    from ...core.errors import MissingPackageError, NoDeviceError
    from ...core.program import nvrtc_version, supported_archs

    cache = default_cache()
    try:
        fit = versions_fit()
    except MissingPackageError:  # no cuda-bindings: nothing to judge; the rest still shown
        fit = None
    info = {"devices": [], "device_count": 0, "driver": {"release": None, "cuda": None},
            "packages": package_versions(), "cache": cache.describe() if cache.enabled else None,
            "cuda": fit, "driver_error": None, "missing_package": None}
    try:
        info["nvrtc"], info["archs"] = "%d.%d" % nvrtc_version(), supported_archs()
    except Exception as e:  # no NVRTC library: say so, keep the rest
        info["nvrtc"], info["archs"] = f"unavailable ({why_unavailable(e)})", []
    try:
        count = device_count()
        info["device_count"] = count
        info["driver"] = {"release": driver_release(), "cuda": "%d.%d" % driver_version()}
        for i in ([ordinal] if ordinal is not None else range(count)):
            with Device(i) as d:
                free, total = d.memory_info()
                info["devices"].append({"index": i, "name": d.name, "arch": d.arch, "sm_count": d.sm_count,
                                        "memory_bytes": total, "free_bytes": free,
                                        "clock_khz": d.attribute("CLOCK_RATE"),
                                        "l2_bytes": d.attribute("L2_CACHE_SIZE")})
    except MissingPackageError as e:
        info["missing_package"] = str(e)
    except NoDeviceError as e:
        info["driver_error"] = str(e)
    return info
