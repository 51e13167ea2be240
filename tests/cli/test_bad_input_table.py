"""Every bad input tried (issue 24), with its one-line answer: argv -> exit code and a fragment of the one line.

Run in-process through ``cugraphlab.cli.main`` with the driver refusing (as on a machine without a GPU, on every
machine), so that each row says what a newcomer without a GPU sees. Placeholders: ``{tmp}`` a fresh folder,
``{file}`` a regular file in it, ``{scripts}`` the folder of the doctor's scripts below, ``{records}`` a folder of
broken record files, ``{results}`` benchmarks/results/. A row whose exit code is 2 must print exactly one line on
stderr, ``cugraphlab COMMAND: ...``, holding the fragment; no row may print a traceback of the package.
"""
from __future__ import annotations

import shlex
import sys
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
COUNT = "must be a whole number from 1 to 2^40, got"  # every count and size out of range: one bound, one wording

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
    ("run --chunks 0", 2, f"--chunks: {COUNT} '0'"),
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
    ("run --iters 0", 2, f"--iters: {COUNT} '0'"),
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
    ("measure {tmp}/s.py:step --time-budget 0", 2, f"--time-budget: {SECONDS}"),
    ("measure {tmp}/s.py:step --time-budget inf", 2, f"--time-budget: {SECONDS}"),
    ("measure {tmp}/s.py:step --compare-to {tmp}/old.json", 2, "old.json: no such file"),
    ("measure {tmp}/s.py:step --processes 0", 2, f"--processes: {COUNT} '0'"),
    # show: records that cannot be shown
    ("show {tmp}/missing.json", 2, "missing.json: no such file"),
    ("show {tmp}", 2, "is a directory, not a record file"),
    ("show {records}/truncated.json", 2, "is not JSON ("),
    ("show {records}/other_schema.json", 2, "schema 99 of cugraphlab.run; this cugraphlab reads schema 1"),
    ("show {results}/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json --plot {tmp}/m", 2, "has no figure"),
    ("show {results}/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json --plot {tmp}/", 2, "names a folder"),
    ("show", 2, "the following arguments are required: RECORD.json"),
    # issue 30 §4: the edges a new user still hit
    ("show {records}/huge_int.json", 2, "holds an integer of thousands of digits"),
    ("diff {records}/huge_int.json {records}/huge_int.json", 2, "holds an integer of thousands of digits"),
    ("show {records}/null.json", 2, "holds JSON null, not a record"),
    ("show --plain {records}/null.json", 2, "holds JSON null, not a record"),
    ("diff {records}/schema_text.json {records}/schema_text.json", 2, 'a schema written as "1" (not a whole number)'),
    ("measure {tmp}/k.cu --size 2^35 --args out,x,n", 2, "--size 34,359,738,368 does not fit const int n (i32: "),
    ("measure {tmp}/k.cu --size 2^31 --args out,x,n", 2, "does not fit const int n"),
    ("measure {tmp}/big.cu --size 2^38 --args out,x,n", 2, "of host memory"),
    ("measure {tmp}/k.cu --args out,x,nan", 2, "expected a finite number, got nan"),
    ("measure {tmp}/k.cu --args out,x,1e999", 2, "expected a finite number, got 1e999"),
    ("measure {tmp}/k.cu --args out,x,2^40", 2, "does not fit i32"),
    ("measure {tmp}/bad.cu --args out,n", 2, "does not compile"),  # NVRTC first: no GPU needed to say so
    ("measure {tmp}/K.CU --args out,x,n", 2, NO_GPU),  # a .CU is a .cu file: planned, compiled, then the GPU
    ("measure {tmp}/K.CU --args out,x,n --stream cupy", 2, "--stream is for a Python function"),
    ("measure {tmp}/k.cu --ways '' --args out,x,n", 2, f"--ways: expected names separated by commas, {EMPTY_ITEM}"),
    ("measure {tmp}/s.py:step --threshold 10%", 2, "--threshold judges a comparison: give --compare-to"),
    ("measure {tmp}/s.py:step --fail-on slower", 2, "--fail-on judges a comparison: give --compare-to"),
    ("measure {tmp}/s.py:step --block 128", 2, "--block is for a kernel in a .cu file"),
    ("measure {scripts}/imports_missing.py:step", 2, "failed: No module named 'cugraphlab_no_such_dep' (at "
                                                    "imports_missing.py:1 in <module>)"),
    ("timeline --out {tmp}/t --no-plot", 2, "--out names the figures, and --no-plot draws none"),
    ("sweep --out {tmp}/s --no-plot", 2, "--out names the figures, and --no-plot draws none"),
    ("timeline --no-plot", 2, NO_GPU),
    ("compare --no-paired --paired-contexts 4", 2, "--paired-contexts sizes the paired section"),
    ("run --size 10000000000000", 2, f"--size: {COUNT} '10000000000000'"),
    ("run --size 2^41", 2, f"--size: {COUNT} '2^41'"),
    ("run --size -1", 2, f"--size: {COUNT} '-1'"),
    ("run --size 0", 2, f"--size: {COUNT} '0'"),
    ("run --seed 2^64", 2, SEED),
    ("run --seed 2^20", 2, NO_GPU),  # a seed written 2^K is taken
    ("diff a.json b.json --seed 18446744073709551616", 2, SEED),
    ("diff a.json b.json --seed -3", 2, SEED),
    ("diff a.json b.json --threshold -5%", 2, "threshold must be > 0, got '-5%'"),
    ("diff a.json b.json --threshold=-5%", 2, "threshold must be > 0, got '-5%'"),
    ("measure {tmp}/s.py:step --compare-to {tmp}/old.json --threshold -5%", 2, "threshold must be > 0"),
    ("doctor --json {tmp}/d.json {scripts}/raises.py", 2, "--json is for --gallery"),
    ("doctor --device 1 {scripts}/raises.py", 2, "--device is for --gallery"),
    ("compile --no-cache", 2, "cuda-bindings is not installed"),
    ("info --device -1", 2, "device index must be >= 0, got -1"),  # with cuda.bindings unimportable (the fixture below)
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
    "imports_missing.py": "import cugraphlab_no_such_dep\n\n\ndef step(stream):\n    pass\n",
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
    (records / "huge_int.json").write_text('{"kind": "cugraphlab.run", "schema": 1, "x": ' + "9" * 5000 + "}")
    (records / "null.json").write_text("null")
    (records / "schema_text.json").write_text('{"kind": "cugraphlab.run", "schema": "1", "samples": {}}')
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k(float* out, const float* x, const int n) {}\n')
    (tmp_path / "K.CU").write_text('extern "C" __global__ void k(float* out, const float* x, const int n) {}\n')
    (tmp_path / "big.cu").write_text('extern "C" __global__ void k(float* out, const float* x, size_t n) {}\n')
    (tmp_path / "bad.cu").write_text('extern "C" __global__ void k(float* out, int n) { out[0] = oops; }\n')
    return {"tmp": str(tmp_path), "file": str(tmp_path / "file"), "scripts": str(scripts), "records": str(records),
            "results": str(ROOT / "benchmarks" / "results")}


def _argv(text: str, places: dict) -> list[str]:
    return shlex.split(text.format(**places))


@pytest.mark.parametrize("argv, code, fragment", TABLE, ids=[row[0] for row in TABLE])
def test_each_bad_input_gets_its_one_line(argv, code, fragment, places, no_gpu, capsys, monkeypatch):
    args = _argv(argv, places)
    if args == ["compile", "--no-cache"]:  # as where cuda-bindings is not installed
        import cuda.bindings

        monkeypatch.setattr("cugraphlab.core._door._nvrtc", None)
        monkeypatch.delattr(cuda.bindings, "nvrtc", raising=False)
        monkeypatch.setitem(sys.modules, "cuda.bindings.nvrtc", None)
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
    assert "runpy" not in err and "graphs/doctor/" not in err and "cli/doctor.py" not in err
    assert err.splitlines()[1].lstrip().startswith('File "') and "raises.py" in err.splitlines()[1]


def test_the_table_covers_every_command():
    """Every command of the CLI has at least one row."""
    commands = set(cli.build_parser()._commands)
    tried = {row[0].split()[0] for row in TABLE}
    assert commands - tried == set()
