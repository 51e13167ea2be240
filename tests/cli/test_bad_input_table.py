"""Every bad input tried (issue 24), with its one-line answer: argv -> exit code and a fragment of the one line.

Run in-process through ``cugraphlab.cli.main`` with the driver refusing (as on a machine without a GPU, on every
machine), so that each row says what a newcomer without a GPU sees. Placeholders: ``{tmp}`` a fresh folder,
``{file}`` a regular file in it, ``{scripts}`` the folder of the doctor's scripts below, ``{records}`` a folder of
broken record files, ``{results}`` benchmarks/results/. A row whose exit code is 2 must print exactly one line on
stderr, ``cugraphlab COMMAND: ...``, holding the fragment; no row may print a traceback of the package.
"""
from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

import pytest

from cugraphlab import cli

ROOT = Path(__file__).resolve().parents[2]
NO_GPU = "no usable GPU"
SEED = "--seed: must be 0 to 2**64 - 1"
SECONDS = "must be a finite number of seconds > 0"
ITERS = "at most 1,000,000 per timed loop"
EMPTY_ITEM = "with none empty"

#: (argv, exit code, fragment of the one line)
TABLE = [
    # a negative seed: was NumPy's ValueError from experiment/chain.py, exit 1
    ("run --seed -1", 2, SEED),
    ("update --seed -1", 2, SEED),
    ("conditional --seed -1", 2, SEED),
    ("pdl --seed -1", 2, SEED),
    ("nodes --seed -1", 2, SEED),
    ("switch --seed -1", 2, SEED),
    ("memnodes --seed -1", 2, SEED),
    ("devlaunch --seed -1", 2, SEED),
    ("scaling --seed -1", 2, SEED),
    ("scale --seed -1", 2, SEED),
    ("compare --seed -1", 2, SEED),
    ("run --seed x", 2, "--seed: expected a whole number >= 0"),
    ("run --seed 18446744073709551616", 2, SEED),
    ("run --chunks 0", 2, "--chunks: must be >= 1, got 0"),
    # seconds: was bench/stats' ValueError (time cap), or taken (inf timeouts)
    ("latency --time-cap 0", 2, f"--time-cap: {SECONDS}"),
    ("latency --time-cap -1", 2, f"--time-cap: {SECONDS}"),
    ("latency --time-cap inf", 2, f"--time-cap: {SECONDS}"),
    ("latency --time-cap nan", 2, f"--time-cap: {SECONDS}"),
    ("latency --time-cap soon", 2, "--time-cap: expected seconds"),
    ("scaling --budget 0", 2, f"--budget: {SECONDS}"),
    ("compare --timeout 0", 2, f"--timeout: {SECONDS}"),
    ("compare --timeout inf", 2, f"--timeout: {SECONDS}"),
    ("scale --timeout -1", 2, f"--timeout: {SECONDS}"),
    ("scale --gil-seconds -1", 2, "--gil-seconds: must be 0 (skip it) or a finite number of seconds > 0"),
    # lists with an empty item: were read as all stacks, or as fewer ops
    ("compare --stacks ''", 2, f"--stacks: expected names separated by commas, {EMPTY_ITEM}"),
    ("compare --stacks torch,,jax", 2, EMPTY_ITEM),
    ("compare --ops add,,mul", 2, f"--ops: expected names separated by commas, {EMPTY_ITEM}"),
    ("run --ops ''", 2, EMPTY_ITEM),
    ("run --ops add,mul,", 2, EMPTY_ITEM),
    ("compare --stacks nosuch", 2, "unknown stack 'nosuch'; known: cugraphlab, bindings"),
    ("run --ops foo", 2, "unknown op 'foo'; known ops: add, mul, sub, relu"),
    # iterations: had no upper bound
    ("run --iters 2000000", 2, f"--iters: {ITERS}"),
    ("compare --iters 2^30", 2, f"--iters: {ITERS}"),
    ("pdl --iters 10000000", 2, f"--iters: {ITERS}"),
    ("memnodes --iters 2000000", 2, f"--iters: {ITERS}"),
    ("timeline --iters 2000000", 2, f"--iters: {ITERS}"),
    ("nodes --iters 2000000", 2, f"--iters: {ITERS}"),
    ("switch --iters 2000000", 2, f"--iters: {ITERS}"),
    ("scale --launches 2^30", 2, f"--launches: {ITERS}"),
    ("run --iters 0", 2, "--iters: must be >= 1"),
    ("run --iters 1,000", 2, "ambiguous"),
    # numbers that must be finite: --threshold inf said "must be > 0"
    ("diff a.json b.json --threshold inf", 2, "threshold must be a finite number > 0 (a fraction like 0.05"),
    ("diff a.json b.json --threshold 0", 2, "threshold must be > 0"),
    ("conditional --threshold nan", 2, "--threshold: must be a finite number"),
    ("conditional --threshold inf", 2, "--threshold: must be a finite number"),
    ("run --scalar inf", 2, "--scalar: must be a finite number"),
    # output paths, checked before measuring
    ("run --json ''", 2, "--json '': an empty path: give a file path"),
    ("compare --csv ''", 2, "--csv '': an empty path"),
    ("graph --dot ''", 2, "--dot '': an empty path"),
    ("run --json {tmp}", 2, "is a folder; give a file path"),
    ("run --json {file}/out.json", 2, "is not a folder"),
    ("graph --draw {file}/g", 2, "--draw"),
    ("graph --draw {tmp}/plots/", 2, "--draw '{tmp}/plots/' names a folder, not files"),
    ("diff a.json b.json --plot {tmp}/plots/", 2, "--plot '{tmp}/plots/' names a folder"),
    ("timeline --out .", 2, "--out '.' names a folder"),
    ("sweep --out {tmp}/", 2, "names a folder"),
    ("scale --plot ..", 2, "names a folder"),
    ("run --json /dev/null", 2, NO_GPU),  # a character device is written through: accepted, then no GPU
    ("compile --arch foo", 2, "arch must look like sm_90 or compute_90, got 'foo'"),
    ("compile --arch sm_10", 2, "does not know arch 'sm_10'; it knows: sm_"),
    # words
    ("run --foo", 2, "cugraphlab run: unrecognized arguments: --foo"),
    ("latency --size 1024 --bar 3", 2, "cugraphlab latency: unrecognized arguments: --bar 3"),
    ("bogus", 2, "invalid choice: 'bogus'"),
    ("nodes --lesson foo", 2, "invalid choice: 'foo'"),
    # no GPU: one line, exit 2, from every command that needs one (scaling printed its plan's line first)
    ("run", 2, NO_GPU),
    ("scaling", 2, NO_GPU),
    ("scaling --quick", 2, NO_GPU),
    ("latency", 2, NO_GPU),
    ("compare --stacks torch", 2, NO_GPU),
    ("scale", 2, NO_GPU),
    ("info", 2, NO_GPU),
    ("doctor --gallery", 2, NO_GPU),
    # the doctor: "doctor: doctor: no such file", a folder called no such file, frames of its own and exit 1
    ("doctor {tmp}/missing.py", 2, "cugraphlab doctor: no such file: "),
    ("doctor {tmp}", 2, "is a folder with no __main__.py"),
    ("doctor {scripts}/syntax.py", 2, "line 1: '(' was never closed (a syntax error: the script did not start)"),
    ("doctor -m cugraphlab_no_such_module", 2, "-m cugraphlab_no_such_module: No module named"),
    ("doctor {scripts}/needs_gpu.py", 2, NO_GPU),
    ("doctor {scripts}/wraps_no_gpu.py", 2, NO_GPU),
    ("doctor -m", 2, "-m needs a module name"),
    ("doctor", 2, "name a Python file to run"),
    ("doctor --gallery x.py", 2, "give a script, a module or --gallery, not both"),
    # measure: your own work (issue 25; a function that raises names its exception: tests/cli/test_measure_cli.py)
    ("measure {tmp}/missing.py:step", 2, "missing.py: no such file"),
    ("measure {tmp}/step", 2, "expected path/to/file.py:function, package.module:function or a .cu file"),
    ("measure {tmp}/missing.cu --args out,x", 2, "missing.cu: no such file"),
    ("measure {scripts}/needs_gpu.py:main", 2, NO_GPU),
    ("measure cugraphlab_no_such_module:step", 2, "no module named 'cugraphlab_no_such_module'"),
    ("measure {tmp}/k.cu --setup make", 2, "--setup is for a Python function"),
    ("measure {tmp}/s.py:step --kernel saxpy", 2, "--kernel is for a kernel in a .cu file"),
    ("measure {tmp}/s.py:step --time-budget 0", 2, "--time-budget must be > 0 seconds"),
    ("measure {tmp}/s.py:step --compare-to {tmp}/old.json", 2, "old.json: no such file"),
    ("measure {tmp}/s.py:step --processes 0", 2, "--processes: must be >= 1"),
    # show: records that cannot be shown
    ("show {tmp}/missing.json", 2, "missing.json: no such file"),
    ("show {tmp}", 2, "is a directory, not a record file"),
    ("show {records}/truncated.json", 2, "is not JSON ("),
    ("show {records}/list.json", 2, "holds a JSON list, not a record"),
    ("show {records}/other_schema.json", 2, "schema 99 of cugraphlab.run; this cugraphlab reads schema 1"),
    ("show {results}/2026-12-01_H200_round3/first_run_6556744/memnodes.json", 2, "--plain shows its fields"),
    ("show {results}/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json --plot {tmp}/m", 2, "has no figure"),
    ("show {results}/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json --plot {tmp}/", 2, "names a folder"),
    ("show", 2, "the following arguments are required: RECORD.json"),
]

SCRIPTS = {
    "syntax.py": "x = (\n",
    "needs_gpu.py": "import cugraphlab as cgl\nwith cgl.Device(0):\n    pass\n",
    "wraps_no_gpu.py": textwrap.dedent("""
        import cugraphlab as cgl
        try:
            cgl.Device(0)
        except Exception as e:
            raise RuntimeError("could not set up") from e
    """),
    "raises.py": "def f():\n    raise ValueError('boom in the script')\n\n\nf()\n",
}


@pytest.fixture
def places(tmp_path):
    (tmp_path / "file").write_text("x")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for name, text in SCRIPTS.items():
        (scripts / name).write_text(text)
    records = tmp_path / "records"
    records.mkdir()
    (records / "truncated.json").write_text('{"kind": "cugraphlab.run", "sch')
    (records / "list.json").write_text("[1, 2]")
    (records / "other_schema.json").write_text('{"kind": "cugraphlab.run", "schema": 99}')
    return {"tmp": str(tmp_path), "file": str(tmp_path / "file"), "scripts": str(scripts), "records": str(records),
            "results": str(ROOT / "benchmarks" / "results")}


def _argv(text: str, places: dict) -> list[str]:
    return shlex.split(text.format(**places))


@pytest.mark.parametrize("argv, code, fragment", TABLE, ids=[row[0] for row in TABLE])
def test_each_bad_input_gets_its_one_line(argv, code, fragment, places, no_gpu, capsys):
    args = _argv(argv, places)
    got = cli.main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    assert got == code, (argv, got, err)
    lines = err.strip().splitlines()
    command = args[0] if args and not args[0].startswith("bogus") else ""
    assert len(lines) == 1, (argv, err)
    assert lines[0].startswith(f"cugraphlab {command}".rstrip()), lines[0]
    assert fragment.format(**places) in lines[0], (fragment, lines[0])
    assert f"{command}: {command}:" not in lines[0] or not command, lines[0]  # "doctor: doctor: no such file"
    assert "Error" not in lines[0].replace("DeviceMemoryError", ""), lines[0]  # no Python class names


def test_a_script_that_raises_shows_its_own_traceback_only(places, no_gpu, capsys):
    """The user's traceback is theirs to see; the doctor's and runpy's frames are not; exit 1 says it raised."""
    assert cli.main(["doctor", f"{places['scripts']}/raises.py"]) == 1
    out, err = capsys.readouterr()
    assert "ValueError: boom in the script" in err and 'raises.py", line 5' in err
    assert "runpy" not in err and "graphs/doctor.py" not in err and "cli/doctor.py" not in err
    assert err.splitlines()[1].lstrip().startswith('File "') and "raises.py" in err.splitlines()[1]


def test_the_table_covers_every_command():
    """Every command of the CLI has at least one row."""
    commands = set(cli.build_parser()._commands)
    tried = {row[0].split()[0] for row in TABLE}
    assert commands - tried == set()
