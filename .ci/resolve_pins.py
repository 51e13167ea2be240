"""Check with pip's own resolver that the package's pins resolve on every supported Python, for each CUDA major.

For each Python in PYTHONS and each install flavour (plain, [cu12], [cu13]) this asks pip, without installing
anything, which wheels it would pick for manylinux x86_64 (`pip install --dry-run --report`), then checks that
cuda-bindings lands on the expected major (plain: 13, cu12: 12.9.x with x >= 1, cu13: 13), that the CuPy of the
extra matches it, that the NVRTC wheel is the bindings' major, that no NVIDIA library the code never loads comes
along (nvJitLink, NVVM, cuFile, nvfatbin, nvcc: only the devlaunch extras may bring nvJitLink, the CUDA runtime
and the headers device graph launch compiles against). The project itself is a local folder, so its requirement
lists are read from pyproject.toml.

Usage: python .ci/resolve_pins.py [--python 3.10 ...] [--jobs N]; exits 1 naming every failure.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10 running the check
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64")
# flavour -> (extras, expected cuda-bindings major, the CuPy wheel that must come with it or None)
FLAVOURS = {"plain": ((), 13, None), "cu12": (("cu12",), 12, "cupy-cuda12x"), "cu13": (("cu13",), 13, "cupy-cuda13x"),
            "devlaunch": (("devlaunch",), 13, None),
            "cu12+devlaunch": (("cu12", "devlaunch-cu12"), 12, "cupy-cuda12x")}
# wheels per major: NVRTC always; the device-launch ones only with a devlaunch extra
NVRTC = {12: "nvidia-cuda-nvrtc-cu12", 13: "nvidia-cuda-nvrtc"}
DEVLAUNCH = {12: ("nvidia-nvjitlink-cu12", "nvidia-cuda-runtime-cu12"),
             13: ("nvidia-nvjitlink", "nvidia-cuda-runtime", "nvidia-cuda-crt")}
# what cuda-bindings[all] used to bring that nothing here loads
UNUSED = ("nvidia-nvvm", "nvidia-cufile", "nvidia-nvfatbin")
DEVLAUNCH_ONLY = ("nvidia-nvjitlink", "nvidia-cuda-runtime", "nvidia-cuda-nvcc", "nvidia-cuda-crt")


def requirements(extras) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras or ():
        reqs += project["optional-dependencies"][extra]
    return reqs


def library_problems(got: dict[str, str], major: int, devlaunch: bool) -> list[str]:
    """What is wrong with the NVIDIA library wheels of one resolution (see the module docstring)."""
    problems = []
    if NVRTC[major] not in got:
        problems.append(f"{NVRTC[major]} missing (NVRTC of CUDA {major})")
    others = [k for k in NVRTC.values() if k != NVRTC[major] and k in got]
    if others:
        problems.append(f"NVRTC of the other major: {others}")
    unused = sorted(k for k in got if k.startswith(UNUSED))
    if unused:
        problems.append(f"libraries nothing loads: {unused}")
    if devlaunch:
        missing = [k for k in DEVLAUNCH[major] if k not in got]
        if missing:
            problems.append(f"devlaunch without {missing}")
    else:
        extra = sorted(k for k in got if k.startswith(DEVLAUNCH_ONLY))
        if extra:
            problems.append(f"device-launch libraries without the devlaunch extra: {extra}")
    return problems


#: pip's words for a download that went wrong, not for pins that do not resolve: such a run is tried again (the
#: parallel jobs share pip's cache; one download once came back with another sha256 than the index states)
TRANSIENT = ("Expected sha256", "do not match the hashes", "DO NOT MATCH THE HASHES", "Read timed out",
             "Connection reset", "ConnectionError", "IncompleteRead", "HTTP error 5")


def resolve(python: str, reqs: list[str], attempts: int = 3) -> dict[str, str]:
    """{distribution name: version} pip would install for ``python``; RuntimeError with pip's words if none. A failed
    download (``TRANSIENT``) is tried again, without pip's cache, up to ``attempts`` times in all."""
    for attempt in range(attempts):
        with tempfile.TemporaryDirectory() as target:
            cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report",
                   "-", "--python-version", python, "--only-binary=:all:", "--target", target]
            for p in PLATFORMS:
                cmd += ["--platform", p]
            if attempt:
                cmd.append("--no-cache-dir")
            r = subprocess.run(cmd + reqs, capture_output=True, text=True)
        if r.returncode == 0 or not any(t in r.stderr for t in TRANSIENT):
            break
    if r.returncode != 0:
        tail = (r.stderr.strip().splitlines() or ["(no message)"])[-3:]
        raise RuntimeError(" / ".join(tail) + (f" (after {attempts} attempts)" if attempt else ""))
    report = json.loads(r.stdout)
    return {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"] for i in report["install"]}


def check(python: str, flavour: str) -> tuple[str, str, float]:
    extras, major, cupy = FLAVOURS[flavour]
    t0 = time.perf_counter()
    try:
        got = resolve(python, requirements(extras))
    except RuntimeError as e:
        return "FAIL", f"does not resolve: {e}", time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    cb = got.get("cuda-bindings", "")
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", cb)
    problems = []
    if not m or int(m.group(1)) != major:
        problems.append(f"cuda-bindings {cb or 'missing'}, expected {major}.x")
    elif major == 12 and (int(m.group(2)), int(m.group(3))) < (9, 1):
        problems.append(f"cuda-bindings {cb} is older than 12.9.1")
    if cupy and cupy not in got:
        problems.append(f"{cupy} missing")
    other = {"cupy-cuda12x", "cupy-cuda13x"} - {cupy}
    if cupy and other & set(got):
        problems.append(f"both CuPy wheels: {sorted(other & set(got))}")
    if m:
        problems += library_problems(got, major, any(e.startswith("devlaunch") for e in extras))
    nvrtc = [f"{k} {v}" for k, v in got.items() if k.startswith("nvidia-cuda-nvrtc")]
    summary = f"cuda-bindings {cb}; " + (", ".join(nvrtc) or "no NVRTC wheel") + (
        f"; {cupy} {got.get(cupy)}" if cupy else "")
    return ("FAIL" if problems else "ok"), ("; ".join(problems) + " -- " if problems else "") + summary, seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", action="append", help="Python version(s) to check (default: 3.10 to 3.13)")
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args(argv)
    jobs = [(py, fl) for py in (args.python or PYTHONS) for fl in FLAVOURS]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: check(*j), jobs))
    failed = 0
    for (py, fl), (status, text, seconds) in zip(jobs, results):
        failed += status != "ok"
        print(f"{status:4}  Python {py}  {fl:14}  {text}  ({seconds:.0f} s)")
    print(f"pins: {len(jobs) - failed} of {len(jobs)} resolve as expected ({time.perf_counter() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
