"""The whole course on a fresh runtime, from the wheel alone: the nearest thing to a class's first Colab session.

A new virtual environment outside the checkout, whose working folder holds a cugraphlab wheel built from this tree
(`pip wheel --no-deps`), as a student's upload would, and IPython and matplotlib (which Colab has). Notebook 01's
setup cell must say what it tried, in order (not importable, no checkout, no configured source, the uploaded wheel),
install the wheel with its dependencies from the package index, and never raise. Then every course notebook and
every solutions notebook runs there, each in its own process, its code cells through IPython as Jupyter would run
them (tests/package/notebook_runner.py: no Jupyter kernel, so it stays fast): without a GPU no cell fails, every GPU
cell prints its one "needs a GPU: ..." line, every record cell prints what the committed notebook shows (the record
travels in the wheel) and displays nothing more, every check says "not answered yet" (course) or "passed"
(solutions), and no cell's output floods the page. In the solutions notebooks every check that runs without a GPU
must also reject a plausible wrong answer (tests/package/exercise_wrong_answers.py). Runs once in CI (the CUDA 13 step; it needs the package index).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import venv
from pathlib import Path

import pytest
from exercise_wrong_answers import WRONG  # tests/package is on sys.path (rootdir-less test folder)

ROOT = Path(__file__).resolve().parents[2]
# its fresh environment and notebook runs are made once per test run, whichever worker asks first
# (helpers/once_per_run.py); the group mark only puts these tests at the front of the queue (tests/conftest.py)
pytestmark = pytest.mark.xdist_group("course_environment")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + \
    sorted((ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
FIRST = ROOT / "notebooks" / "01_launch_overhead.ipynb"
RUNNER = Path(__file__).with_name("notebook_runner.py")
WITH_PICTURES = {"02", "08"}  # their record cells draw a figure (a PNG), and display nothing else


def _bindings_major() -> int:
    try:
        from cuda.bindings import driver

        return driver.CUDA_VERSION // 1000
    except Exception:
        return 0


def _gpu_present() -> bool:
    try:
        import cugraphlab as cgl

        return cgl.core.device_count() > 0
    except Exception:
        return False


def _stream(cell) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory, built_wheel):
    """(venv python, runtime folder, wheel name, env): a fresh environment outside the checkout with the wheel
    uploaded to its working folder, and IPython and matplotlib installed (as on Colab); made once per test run,
    whichever worker asks first (helpers/once_per_run.py)."""
    from once_per_run import once, shared_folder

    base = tmp_path_factory.getbasetemp()

    def make():
        tmp = shared_folder(base) / "colab"
        content = tmp / "content"
        content.mkdir(parents=True)
        wheel = built_wheel  # pip wheel --no-deps of this checkout (tests/conftest.py)
        (content / wheel.name).write_bytes(wheel.read_bytes())  # the student's upload
        env_dir = tmp / "env"
        venv.EnvBuilder(with_pip=True).create(env_dir)
        python = env_dir / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env["MPLBACKEND"] = "Agg"
        r = subprocess.run([str(python), "-m", "pip", "install", "-q", "ipython", "matplotlib"], cwd=content,
                           env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stderr[-2000:]
        return [str(python), str(content), wheel.name, env]

    python, content, wheel, env = once(base, "course_runtime", make)
    return Path(python), Path(content), wheel, env


def _run(runtime, paths):
    python, content, _, env = runtime
    out = content.parent / f"cells_{len(paths)}.json"
    wrong = content.parent / "wrong_answers.json"
    wrong.write_text(json.dumps(WRONG))
    r = subprocess.run([str(python), str(RUNNER), str(out), *map(str, paths)], cwd=content,
                       env={**env, "WRONG_ANSWERS": str(wrong)}, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads(out.read_text())


_SKIPS = [pytest.mark.skipif(_bindings_major() == 12, reason="runs once in CI, in the cuda-bindings 13 step (it "
                                                            "installs from the package index into a fresh environment)"),
          pytest.mark.skipif(os.environ.get("CGL_OFFLINE") == "1", reason="CGL_OFFLINE=1: no package index here"),
          pytest.mark.skipif(_gpu_present(), reason="a GPU is present: notebooks/run_all.sh runs them with outputs")]


@pytest.fixture(scope="module")
def first(runtime, tmp_path_factory):
    from once_per_run import once

    return once(tmp_path_factory.getbasetemp(), "course_first", lambda: _run(runtime, [FIRST])[0])


@pytest.fixture(scope="module")
def everything(runtime, first, tmp_path_factory):
    from once_per_run import once

    rest = once(tmp_path_factory.getbasetemp(), "course_rest",
                lambda: _run(runtime, [p for p in NOTEBOOKS if p != FIRST]))
    return [first] + rest


@_SKIPS[0]
@_SKIPS[1]
@_SKIPS[2]
def test_the_setup_cell_installs_the_uploaded_wheel_and_says_what_it_tried(runtime, first):
    python, content, wheel, env = runtime
    assert not first.get("crash"), first.get("crash")
    cells = first["cells"]
    setup, opened = cells[0]["text"], cells[1]["text"]
    assert cells[0]["error"] is None and cells[1]["error"] is None, cells[0]["error"] or cells[1]["error"]
    steps = ["1. cugraphlab is not importable yet", "2. no checkout of the course", "3. no COURSE_SOURCE",
             f"4. the uploaded wheel {content / wheel}", "installed: cugraphlab"]
    at = [setup.find(s) for s in steps]
    assert all(i >= 0 for i in at) and at == sorted(at), f"the setup cell said:\n{setup}"
    assert "no GPU here" in opened, opened
    check = subprocess.run([str(python), "-c", "import cugraphlab; print(cugraphlab.__file__)"], cwd=content,
                           env=env, capture_output=True, text=True)
    assert str(python.parent.parent) in check.stdout, check.stdout + check.stderr  # the wheel's copy


def _problems(nb) -> list[str]:
    path = Path(nb["path"])
    name = f"{path.parent.name}/{path.name}" if path.parent.name == "solutions" else path.name
    if nb.get("crash"):
        return [f"{name}: the runner crashed: {nb['crash']}"]
    committed = {c.get("id"): c for c in json.loads(path.read_text())["cells"]}
    solved = path.parent.name == "solutions"
    out = []
    for c in nb["cells"]:
        where, tags, text = f"{name} cell {c['index']}", c["tags"], c["text"]
        if c["error"]:
            out.append(f"{where}: {c['error'][:1500]}")
            continue
        kinds = [k for o in c["outputs"] for k in o["data"]]
        if "gpu" in tags:
            if not (text.startswith("needs a GPU: ") and text.count("\n") == 1) or c["outputs"]:
                out.append(f"{where}: expected one 'needs a GPU' line, got {text!r} and {kinds}")
        elif "record" in tags:
            if text != _stream(committed[c["id"]]):
                out.append(f"{where}: prints\n{text}\nbut the committed notebook shows\n"
                           f"{_stream(committed[c['id']])}\n(python3 notebooks/fill_records.py)")
            pictures = path.stem[:2] in WITH_PICTURES
            if any(not k.startswith("image/") and k != "text/plain" for k in kinds) or \
                    any(o["kind"] == "execute_result" for o in c["outputs"]) or (pictures and "image/png" not in kinds):
                out.append(f"{where}: a record cell displays {kinds} (its text only{', and its figure' * pictures})")
        elif "check" in tags:
            if ("passed" if solved else "not answered yet") not in text or c["outputs"]:
                out.append(f"{where}: {text!r}, displays {kinds}")
            n = re.search(r"^exercise (\d+): passed", text, re.M)
            if solved and n:  # a check that ran (no GPU needed): it must reject the wrong answer
                wrong = c.get("wrong") or {}
                if not (wrong.get("error") or "").startswith(f"AssertionError: exercise {n[1]}: not right yet"):
                    out.append(f"{where}: the check of exercise {n[1]} did not reject {WRONG.get(path.stem[:2] + '-' + n[1])!r}: "
                               f"{wrong}")
        lines = text.count("\n")
        size = len(text.encode()) + sum(len(v.encode()) for o in c["outputs"] for v in o["data"].values())
        if lines > 80 or size > 512 * 1024:
            out.append(f"{where}: {lines} lines, {size:,} bytes of output")
    return out


@_SKIPS[0]
@_SKIPS[1]
@_SKIPS[2]
def test_every_notebook_and_solution_runs_clean_from_the_wheel_outside_the_checkout(everything):
    assert len(everything) == len(NOTEBOOKS) == 32
    problems = [p for nb in everything for p in _problems(nb)]
    assert not problems, "\n\n".join(problems)
    rejected = [c for nb in everything for c in nb["cells"] if (c.get("wrong") or {}).get("error")]
    assert len(rejected) == 11  # the exercises whose checks need no GPU: 01-1, 01-2, 04-1, 07-1, 08-1, 09-1, 10-1,
    #                             11-1, 12-1, 13-1, 16-1 (tests/package/test_exercise_checks_gpu.py runs all 34)
