"""benchmarks/diff_judges.py's logic without a GPU: `cugraphlab run` stood in for by run records modelled on the
H200 (a 1 µs delay per launch where CUGRAPHLAB_LAUNCH_DELAY_NS asks for it), `cugraphlab diff` run for real
in-process; the script passes where the verdicts are right and names the rows where they are not."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import pathlib

import numpy as np

TESTS = pathlib.Path(__file__).resolve().parents[1]

from synthetic_records import run_record

SCRIPT = TESTS.parent / "benchmarks" / "diff_judges.py"


def _script():
    spec = importlib.util.spec_from_file_location("diff_judges", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _runner(delay_works: bool = True):
    rng = np.random.default_rng(0)
    from cugraphlab.cli import main as cli

    def run(args, env=None):
        if args[0] == "run":
            path = args[args.index("--json") + 1]
            delay = 1.0 if delay_works and (env or {}).get("CUGRAPHLAB_LAUNCH_DELAY_NS") else 0.0
            rec = run_record(rng, delay_us=delay, iters=int(args[args.index("--iters") + 1]))
            if "--size" in args:
                rec["config"]["size"] = int(args[args.index("--size") + 1])
            pathlib.Path(path).write_text(json.dumps(rec))
            return 0, "mode table", ""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli(args)
        return rc, out.getvalue(), err.getvalue()

    return run


def test_the_judges_pass_on_what_the_h200_model_gives(tmp_path, capsys):
    dj = _script()
    rc = dj.main([str(tmp_path)], runner=_runner(), cost=lambda: ["(chunk cost: measured on the H200)"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.rstrip().endswith("diff judges: every verdict as it must be")
    slow = json.loads((tmp_path / "diff_slow.json").read_text())
    assert {r["label"]: r["verdict"] for r in slow["rows"]}["eager: wall"] == "SLOWER"
    assert "cugraphlab diff run_a.json run_small.json: exit 2" in out and "size: 1048576 -> 1024" in out
    table = [line for line in out.splitlines() if line.startswith(("self ", "repeat ", "slow "))]
    assert len(table) == 18 and not any("WRONG" in line for line in table)


def test_a_delay_that_did_nothing_is_reported(tmp_path, capsys):
    dj = _script()
    rc = dj.main([str(tmp_path)], runner=_runner(delay_works=False), cost=lambda: [])
    out = capsys.readouterr().out
    assert rc == 1
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("diff judges: WRONG:") and "slow: eager: wall is SAME, expected SLOWER" in last
    assert "diff slow exited 0, expected 1" in last
