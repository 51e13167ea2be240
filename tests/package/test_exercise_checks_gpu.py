"""Every exercise's check can fail, and only for the right reason, on the GPU: each solutions notebook runs on this
machine's GPU (tests/package/notebook_runner.py: IPython, no Jupyter kernel, the checkout on PYTHONPATH), every
check must pass on the solution, and then reject the plausible wrong answer of tests/package/exercise_wrong_answers.py
(all 34; without a GPU tests/package/test_course_setup.py does the 11 checks that need none). A check skipped for
what this GPU lacks (PDL below sm_90, IF/ELSE below CUDA 12.8, device launch without nvJitLink) is listed, and fails
the test where REQUIRE_GPU=1 (the H200 run)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from exercise_wrong_answers import WRONG  # tests/package is on sys.path (rootdir-less test folder)

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
RUNNER = Path(__file__).with_name("notebook_runner.py")


def test_every_check_accepts_its_solution_and_rejects_a_wrong_answer(tmp_path):
    if importlib.util.find_spec("IPython") is None:
        pytest.skip("IPython is not importable: pip install ipython (or the notebook wheels, benchmarks/h200.sh)")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(WRONG))
    out = tmp_path / "cells.json"
    env = {**os.environ, "WRONG_ANSWERS": str(wrong), "RUNNER_JOBS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    r = subprocess.run([sys.executable, str(RUNNER), str(out), *map(str, SOLUTIONS)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    problems, skipped, rejected = [], [], []
    for nb in json.loads(out.read_text()):
        name = Path(nb["path"]).stem
        if nb.get("crash"):
            problems.append(f"{name}: the runner crashed: {nb['crash']}")
        for c in nb["cells"]:
            if "check" not in c["tags"]:
                continue
            m = re.search(r"^exercise (\d+): passed", c["text"], re.M)
            if c["error"]:
                problems.append(f"{name} cell {c['index']}: the solution fails its check: {c['error'][:1500]}")
            elif m is None:
                skipped.append(f"{name} cell {c['index']}: {c['text'].strip()}")
            else:
                key = f"{name[:2]}-{m[1]}"
                err = (c.get("wrong") or {}).get("error") or ""
                if err.startswith(f"AssertionError: exercise {m[1]}: not right yet"):
                    rejected.append(key)
                else:
                    problems.append(f"{name} exercise {m[1]}: the check did not reject {WRONG.get(key)!r}: "
                                    f"{c.get('wrong')}")
    for line in skipped:
        print("skipped:", line)
    assert not problems, "\n\n".join(problems)
    if os.environ.get("REQUIRE_GPU") == "1":
        assert not skipped and sorted(rejected) == sorted(WRONG), sorted(set(WRONG) - set(rejected))
