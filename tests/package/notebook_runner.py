"""Run the code cells of course notebooks the way Jupyter would, without a Jupyter kernel (no ZMQ, no nbclient):
each notebook in its own process, its cells through one IPython InteractiveShell, so that a cell's last expression
is displayed as in a notebook and `display()` publishes MIME bundles. What each cell printed and displayed, and any
error, is written as JSON. Used by tests/package/test_course_from_wheel.py in a fresh virtual environment (it needs
only IPython there, as Colab has); no import of cugraphlab or pytest here.

    python notebook_runner.py OUT.json NOTEBOOK.ipynb [NOTEBOOK.ipynb ...]   # in parallel, one process each
    python notebook_runner.py --one OUT.json NOTEBOOK.ipynb                  # one notebook, in this process

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
