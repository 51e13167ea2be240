"""The correct programs benchmarks/doctor.py runs under the capture doctor and its replay watch: every
``examples/NN_*.py`` (but the doctor's own lesson) and every course notebook, turned into a plain script.

A notebook is run from its solutions twin (``notebooks/solutions/NN_*.ipynb``: the course notebook with every
exercise answered, so every check runs): its code cells in order, each a block of the script, without the pip
setup cell ("Setup 1/2": the package is already installed) and without shell or magic lines (``!cmd``, ``%magic``).
The script starts with a stand-in for IPython.display where IPython is missing (the cells' drawings then print
nothing). Each program runs in a fresh process under ``graphs.doctor.run_explained(replay=True)`` (what
``cugraphlab doctor --replay SCRIPT`` does), from the repository root, with a timeout.

A finding is "KIND: line" (KIND: a graphs.doctor MISTAKES key). ``INTENDED`` lists, per program, the classes its
lesson makes on purpose, with the reason; every other finding, of a capture or of the replay watch, is a false
alarm.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP_PIP = "# Setup 1/2"  # the first line of the setup cell that installs cugraphlab (notebooks/src/_setup.py)
RUNNER = (
    "import json, sys\n"
    "from cugraphlab.graphs.doctor import run_explained\n"
    "code, ds = run_explained(sys.argv[1], [], replay=True)\n"
    "print('@@DOCTOR@@' + json.dumps({'code': code, 'captures': sum(d.mode != 'replay' for d in ds), "
    "'findings': [f'{f.kind}: {f.line()}' for d in ds if d.mode != 'replay' for f in d.findings], "
    "'hazards': [f'{f.kind}: {f.line()}' for d in ds if d.mode == 'replay' for f in d.findings], "
    "'failed': sum(not d.ok for d in ds)}))\n"
)
#: the findings a lesson makes on purpose: program -> {class: why}
INTENDED: dict[str, dict[str, str]] = {
    "04_update.py": {"update_refused": "the lesson shows a cuGraphExecUpdate the driver refuses"},
    "05_update.ipynb": {"update_refused": "section (3) and exercise 1 update to another topology, refused on purpose"},
    "06_capture_doctor.ipynb": {
        "sync": "runs 1 and 2 call cuStreamSynchronize inside the capture (and the CUPTI cell a raw cuCtxSynchronize, "
                "where cupti-python is there)",
        "unjoined": "the fork case and exercise 2 fork streams into the capture and leave one unjoined",
        "foreign": "a raw cuCtxSynchronize past cugraphlab's door, which the doctor alone cannot name",
        "allocation": "exercise 1 calls cuMemAlloc (dev.array) inside a capture",
    },
    "09_measure_your_kernel.ipynb": {
        "sync": "run 2 measures step_with_a_sync, whose stream.synchronize() inside the capture is the mistake measure "
                "names",
    },
    "15_pitfalls.ipynb": {
        "sync": "pitfall 2 synchronizes inside a capture",
        "update_refused": "pitfall 3 (and exercise 1's contrast) update to a longer graph, refused",
        "legacy_stream": "pitfall 6 launches on stream 0 while a blocking stream captures",
        "concurrent_launch": "pitfall 7 launches one executable on two streams",
        "input_race": "pitfall 7's launch of the same executable on stream B writes the buffers of its launch on A",
        "stale_input": "pitfall 1 replays a graph after its inputs moved to a new buffer",
    },
}


#: programs run alone, after the others: 06 runs the doctor's own gallery, whose "state restored" check compares the
#: GPU's free memory before and after each case, which other processes allocating at the same time would move (the
#: first H200 run of this script: the gallery exited 1 inside 06 while three other programs ran)
ALONE = {"06_capture_doctor.ipynb"}


def examples(root: Path = ROOT) -> list[Path]:
    """Every examples/NN_*.py but the doctor's own lesson (it makes every mistake on purpose)."""
    return [p for p in sorted((root / "examples").glob("[0-9][0-9]_*.py")) if "doctor" not in p.name]


def notebooks(root: Path = ROOT) -> list[Path]:
    """Every course notebook, as its solutions twin (every exercise answered)."""
    return sorted((root / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))


PRELUDE = '''\
# written by benchmarks/doctor_programs.py from {name}: its code cells, without the pip setup and magic lines
import sys, types
try:
    from IPython.display import display
except ImportError:  # no IPython here: a stand-in, the cells' drawings print nothing
    def display(*objects, **kwargs):
        pass
    class Image:
        def __init__(self, data=None, filename=None, **kwargs):
            self.data, self.filename = data, filename
    _ipython = types.ModuleType("IPython")
    _ipython.get_ipython = lambda: None  # what matplotlib asks an imported IPython: no shell, and a version
    _ipython.version_info = (9, 0, 0, "")  # new enough that matplotlib leaves its backend alone
    _ipython.display = types.ModuleType("IPython.display")
    _ipython.display.display, _ipython.display.Image = display, Image
    sys.modules["IPython"], sys.modules["IPython.display"] = _ipython, _ipython.display
'''


def cell_sources(notebook: dict) -> list[str]:
    """The code cells' sources of a notebook (nbformat 4 JSON), in order."""
    out = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            src = cell.get("source", "")
            out.append("".join(src) if isinstance(src, list) else src)
    return out


def notebook_script(notebook: dict, name: str = "a notebook") -> str:
    """A plain Python script of a notebook: the prelude, then each code cell but the pip setup, without its shell and
    magic lines (a line starting with ``!`` or ``%``, indented or not; a ``%%`` cell magic drops its whole cell)."""
    blocks = [PRELUDE.format(name=name)]
    for i, src in enumerate(cell_sources(notebook)):
        if src.lstrip().startswith(SETUP_PIP) or src.lstrip().startswith("%%"):
            continue
        lines = [line for line in src.splitlines() if not line.lstrip().startswith(("!", "%"))]
        if any(line.strip() for line in lines):
            blocks.append(f"# ---- cell {i}\n" + "\n".join(lines) + "\n")
    script = "\n".join(blocks)
    compile(script, name, "exec")  # a cell that is not Python fails here, naming the notebook
    return script


def write_script(path: Path, folder: Path) -> Path:
    """The script of notebook ``path`` written as FOLDER/NN_name.py."""
    script = notebook_script(json.loads(path.read_text()), path.name)
    out = folder / (path.stem + ".py")
    out.write_text(script)
    return out


def unintended(run: dict) -> list[str]:
    """The findings (captures and replay watch) of a program that its lesson does not make on purpose."""
    allowed = INTENDED.get(run["program"], {})
    return [f for f in (run.get("findings") or []) + (run.get("hazards") or []) if f.split(":", 1)[0] not in allowed]


def parse_report(stdout: str) -> dict | None:
    """The runner's report line (``@@DOCTOR@@{json}``) in a program's output, or None."""
    line = next((l for l in stdout.splitlines() if l.startswith("@@DOCTOR@@")), None)
    return None if line is None else json.loads(line[len("@@DOCTOR@@"):])


def run_program(path: Path, kind: str, script: Path | None = None, timeout: float = 300) -> dict:
    """Run one program (``script``: the file to run in its stead, a notebook's script) under the doctor in a fresh
    process: exit code, captures, findings, replay findings (hazards), failed captures and seconds."""
    env = dict(os.environ, MPLBACKEND="Agg", PIP_NO_INDEX="1")  # no drawing window, no index lookups
    t0 = time.perf_counter()
    base = {"program": path.name, "kind": kind}
    try:
        r = subprocess.run([sys.executable, "-c", RUNNER, str(script or path)], cwd=ROOT, capture_output=True,
                           text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        out = e.stderr if isinstance(e.stderr, str) else (e.stderr or b"").decode(errors="replace")
        return {**base, "code": None, "captures": None, "findings": [], "hazards": [], "failed": None,
                "seconds": time.perf_counter() - t0, "error": f"timed out after {timeout:.0f} s\n{out[-1500:]}"}
    seconds = time.perf_counter() - t0
    report = parse_report(r.stdout)
    if report is None:
        return {**base, "code": r.returncode, "captures": None, "findings": [], "hazards": [], "failed": None,
                "seconds": seconds, "error": (r.stderr or r.stdout)[-2000:]}
    report.update(base, seconds=seconds)
    if report["code"]:
        report["error"] = (r.stderr or r.stdout)[-2000:]
    return report


def counts(runs: list[dict]) -> dict:
    """How many examples and notebooks ran under the doctor, how many programs had a false alarm, how many exited 0."""
    return {"examples": sum(r["kind"] == "example" for r in runs),
            "notebooks": sum(r["kind"] == "notebook" for r in runs),
            "programs": len(runs), "with_findings": sum(bool(unintended(r)) for r in runs),
            "false_alarms": sum(len(unintended(r)) for r in runs),
            "exit_0": sum(r["code"] == 0 for r in runs)}


def counts_line(c: dict) -> str:
    return (f"under the doctor and the replay watch: {c['examples']} examples + {c['notebooks']} notebooks = "
            f"{c['programs']} programs; programs with findings {c['with_findings']} of {c['programs']} "
            f"({c['false_alarms']} false alarms); exiting 0: {c['exit_0']} of {c['programs']}")


def run_all(workers: int = 4, timeout: float = 300, root: Path = ROOT, programs: str = "all") -> list[dict]:
    """Every example and every notebook under the doctor (``programs``: "all", "examples" or "notebooks"),
    ``workers`` processes at a time (notebooks first: the longest)."""
    from concurrent.futures import ThreadPoolExecutor

    with tempfile.TemporaryDirectory(prefix="doctor_notebooks_") as tmp:
        jobs = [(p, "notebook", write_script(p, Path(tmp))) for p in notebooks(root)] if programs != "examples" else []
        jobs += [(p, "example", None) for p in examples(root)] if programs != "notebooks" else []
        together = [j for j in jobs if j[0].name not in ALONE]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            runs = dict(zip((j[0].name for j in together), pool.map(lambda j: run_program(*j, timeout=timeout),
                                                                     together)))
        for j in jobs:  # after the others: nothing else on the GPU meanwhile
            if j[0].name in ALONE:
                runs[j[0].name] = run_program(*j, timeout=timeout)
        return [runs[j[0].name] for j in jobs]
