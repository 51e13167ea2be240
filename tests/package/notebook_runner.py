"""Run the code cells of course notebooks the way Jupyter would, without a Jupyter kernel (no ZMQ, no nbclient):
each notebook in its own process, its cells through one IPython InteractiveShell, so that a cell's last expression
is displayed as in a notebook and `display()` publishes MIME bundles. What each cell printed and displayed, and any
error, is written as JSON. Used by tests/package/test_course_from_wheel.py in a fresh virtual environment (it needs
only IPython there, as Colab has); no import of cugraphlab or pytest here.

    python notebook_runner.py OUT.json NOTEBOOK.ipynb [NOTEBOOK.ipynb ...]   # in parallel, one process each
    python notebook_runner.py --one OUT.json NOTEBOOK.ipynb                  # one notebook, in this process

WRONG_ANSWERS=FILE.json ({"NN-n": "code", ...}): in a notebook NN, right after the check of exercise n has run, the
code (a plausible wrong answer: it rebinds the answer's names) runs, then that check again (what it said or
raised is kept as the cell's "wrong"), then the names the code bound get their values back.

COURSE_SOURCE is set to None in every setup cell (a course whose repository is not configured: the uploaded wheel
is what installs cugraphlab).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time


def _bound(code: str) -> set[str]:
    import ast
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def run_one(path: str) -> dict:
    os.environ.setdefault("MPLBACKEND", "Agg")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="nocolor")
    shown: list = []

    def publish(data, metadata=None, source=None, *, transient=None, update=False, **kw):
        shown.append({"kind": "display_data", "data": {k: v if isinstance(v, str) else str(v)
                                                      for k, v in data.items()}})

    def result(format_dict, md_dict):
        shown.append({"kind": "execute_result", "data": dict(format_dict)})

    shell.display_pub.publish = publish
    shell.displayhook.write_output_prompt = lambda: None
    shell.displayhook.write_format_data = result
    nb = json.load(open(path))
    wrong_file = os.environ.get("WRONG_ANSWERS")
    wrong = json.load(open(wrong_file)) if wrong_file else {}
    stem = os.path.basename(path)[:2]
    cells = []
    start = time.perf_counter()
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        src = re.sub(r"^COURSE_SOURCE = .*$", "COURSE_SOURCE = None  # no configured source", src, flags=re.M)
        shown.clear()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            r = shell.run_cell(src, store_history=False, silent=False)
        err = r.error_before_exec or r.error_in_exec
        cells.append({"index": i, "id": c.get("id"), "tags": c.get("metadata", {}).get("tags", []),
                      "text": out.getvalue() if err is None else "", "outputs": list(shown),
                      "error": None if err is None else f"{type(err).__name__}: {err}\n{out.getvalue()[-3000:]}"})
        n = re.search(r"^\s*grade\((\d+),", src, re.M)
        code = wrong.get(f"{stem}-{n[1]}") if n and "check" in cells[-1]["tags"] else None
        if code is not None and err is None and re.search(rf"^exercise {n[1]}: passed", cells[-1]["text"], re.M):
            ns = shell.user_ns
            saved = {k: ns[k] for k in _bound(code) if k in ns}
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                r1 = shell.run_cell(code, store_history=False)
                r2 = shell.run_cell(src, store_history=False) if r1.success else r1
            e = r2.error_before_exec or r2.error_in_exec
            cells[-1]["wrong"] = {"text": out.getvalue()[-2000:], "error": None if e is None else
                                  f"{type(e).__name__}: {e}", "answer_ran": r1.success}
            for k in _bound(code) - set(saved):
                ns.pop(k, None)
            ns.update(saved)
    return {"path": path, "seconds": round(time.perf_counter() - start, 2), "cells": cells}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        json.dump(run_one(argv[2]), open(argv[1], "w"))
        return 0
    out, paths = argv[0], argv[1:]
    jobs = max(1, min(len(paths), int(os.environ.get("RUNNER_JOBS", os.cpu_count() or 1))))

    def child(k_path):
        k, path = k_path
        part = f"{out}.{k}.json"
        r = subprocess.run([sys.executable, __file__, "--one", part, path], capture_output=True, text=True)
        if r.returncode:
            return {"path": path, "seconds": None, "cells": [], "crash": (r.stdout + r.stderr)[-3000:]}
        return json.load(open(part))

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(child, enumerate(paths)))
    json.dump(results, open(out, "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
