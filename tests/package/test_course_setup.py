"""The course's setup cell on a fresh runtime: the nearest thing to a new Colab session this machine has.

Notebook 01's code cells run one by one (no Jupyter: the fresh environment has none) in a new virtual environment
outside the checkout, whose working folder holds a cugraphlab wheel built from this tree (`pip wheel --no-deps`),
as a student's upload would. The setup cell must say what it tried, in order (not importable, no checkout, no
configured source, the uploaded wheel), install the wheel with its dependencies from the package index, and never
raise; without a GPU every GPU cell must then print its one "needs a GPU: ..." line, the record cell must say that
the record is not here (no checkout, no repository configured), the CPU cells (the CUDA source from the installed
wheel, NVRTC, NumPy) must run, and the exercise checks must say "not answered yet". Runs once in CI (the CUDA 13
step; it needs the package index).
"""
from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "01_launch_overhead.ipynb"

RUNNER = r'''
import contextlib, io, json, re, sys
nb = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__"}
results = []
for i, c in enumerate(nb["cells"]):
    if c["cell_type"] != "code":
        continue
    src = "".join(c["source"])
    src = re.sub(r"^COURSE_SOURCE = .*$", "COURSE_SOURCE = None  # as in a course without a configured source", src,
                 flags=re.M)
    buf, err = io.StringIO(), None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, f"<cell {i}>", "exec"), ns)
        except BaseException as e:
            err = f"{type(e).__name__}: {e}"
    results.append({"index": i, "tags": c.get("metadata", {}).get("tags", []), "text": buf.getvalue(), "error": err})
json.dump(results, open(sys.argv[2], "w"))
'''


def _bindings_major() -> int:
    try:
        from cuda.bindings import driver

        return driver.CUDA_VERSION // 1000
    except Exception:
        return 0


@pytest.mark.skipif(_bindings_major() == 12, reason="runs once in CI, in the cuda-bindings 13 step (it installs "
                                                    "from the package index into a fresh environment)")
@pytest.mark.skipif(os.environ.get("CGL_OFFLINE") == "1", reason="CGL_OFFLINE=1: no package index here")
def test_notebook_01_sets_itself_up_from_an_uploaded_wheel_in_a_fresh_environment(tmp_path, built_wheel):
    runtime = tmp_path / "content"
    runtime.mkdir()
    wheel = built_wheel  # pip wheel --no-deps of this checkout (tests/package/conftest.py)
    (runtime / wheel.name).write_bytes(wheel.read_bytes())  # the student's upload
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    (tmp_path / "runner.py").write_text(RUNNER)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    r = subprocess.run([str(python), str(tmp_path / "runner.py"), str(NOTEBOOK), str(tmp_path / "cells.json")],
                       cwd=runtime, env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    cells = json.loads((tmp_path / "cells.json").read_text())
    errors = [f"cell {c['index']}: {c['error']}" for c in cells if c["error"]]
    assert not errors, "\n".join(errors)
    setup, opened = cells[0]["text"], cells[1]["text"]
    steps = ["1. cugraphlab is not importable yet", "2. no checkout of the course", "3. no COURSE_SOURCE",
             f"4. the uploaded wheel {runtime / wheel.name}", "installed: cugraphlab"]
    at = [setup.find(s) for s in steps]
    assert all(i >= 0 for i in at) and at == sorted(at), f"the setup cell said:\n{setup}"
    assert "no GPU here" in opened, opened
    for c in cells:
        tags, text = c["tags"], c["text"]
        if "gpu" in tags:
            assert text.startswith("needs a GPU: ") and text.count("\n") == 1, f"cell {c['index']}: {text!r}"
        elif "record" in tags:
            assert text.startswith("H200 record: ") and "is not here" in text, f"cell {c['index']}: {text!r}"
        elif "check" in tags:
            assert "not answered yet" in text, f"cell {c['index']}: {text!r}"
    assert any('extern "C" __global__ void add(' in c["text"] for c in cells), "the kernel source (from the wheel)"
    check = subprocess.run([str(python), "-c", "import cugraphlab, sys; print(cugraphlab.__file__)"], cwd=runtime,
                           env=env, capture_output=True, text=True)
    assert str(env_dir) in check.stdout, check.stdout + check.stderr  # the wheel's copy, not the checkout
