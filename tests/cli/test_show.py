"""``cugraphlab show``: every committed record printed (or refused in one line), every kind the CLI writes rendered
by its command's report, figures with --plot, the public report.render_record; no GPU."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cugraphlab import cli

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
COMMITTED = sorted(RESULTS.rglob("*.json"))


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(RESULTS)))
def test_every_committed_record_is_shown(path, capsys):
    """Every record under benchmarks/results/ shows, exit 0 (issue 30): a JSON list, and records of an older schema
    or shape than this version rebuilds, plainly under a first line saying why."""
    code = cli.main(["show", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and code == 0 and err == "", err
    assert len(out.strip().splitlines()) >= 3


def test_committed_records_cover_the_plain_cases():
    assert len(COMMITTED) >= 100
    assert any(p.read_text(encoding="utf-8").lstrip().startswith("[") for p in COMMITTED)  # a JSON list is among them


def test_show_prints_what_the_command_printed():
    """Every line ``show`` prints from the 2026-11-29 run record is a line of the log run wrote on the H200."""
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli.main(["show", str(RESULTS / "2026-11-29_H200" / "2026-11-29_H200_run.json")]) == 0
    log = {line.rstrip() for line in (RESULTS / "2026-11-29_H200" / "2026-11-29_H200_run.log").read_text()
           .splitlines()}
    lines = [line.rstrip() for line in buf.getvalue().splitlines() if line.strip()]
    assert len(lines) >= 8 and [line for line in lines if line not in log] == []


def _package_kinds() -> dict:
    from cugraphlab.bench.records.kinds import record_kinds

    return {k: c for k, c in record_kinds().items() if c.__module__.startswith("cugraphlab.")}


def _kinds_inside(d, found: set) -> set:
    if isinstance(d, dict):
        if isinstance(d.get("kind"), str) and ("env" in d or "schema" in d):
            found.add(d["kind"])
        for v in d.values():
            _kinds_inside(v, found)
    elif isinstance(d, list):
        for v in d:
            _kinds_inside(v, found)
    return found


def _pdl_record() -> dict:
    """A pdl record as measure_pdl writes it (no committed one exists yet)."""
    from cugraphlab.bench.graphs.pdl import PdlResult, PdlVariant
    from cugraphlab.bench.records.record import clocks
    from cugraphlab.bench.stats.summary import summarize
    from synthetic_records import environment

    def s(v, clock):
        return summarize([v, v * 1.01, v * 0.99], unit="us", clock=clock)

    variants = [PdlVariant(name, "cuLaunchKernel", s(us, "wall"), s(us, "device"), True, 0)
                for name, us in (("plain eager", 20.0), ("PDL eager", 19.0), ("plain graph", 10.0),
                                 ("PDL graph", 9.5), ("PDL early graph", 9.2))]
    config = {"chain": "add -> mul 2 -> sub -> relu on 1,048,576 float32", "iters": 5000, "repeats": 5, "grid": 1024,
              "block": 256, "unroll": 1, "ops": ["add", "mul", "sub", "relu"]}
    return PdlResult(config=config, env=environment(), clocks=clocks("wall", "device"), variants=variants,
                     programmatic_edges=3, plain_graph_edges=3).to_dict()


def _measure_record() -> dict:
    """A measure record as cugraphlab measure writes it (issue 25: no committed one exists yet)."""
    from cugraphlab.bench.measure.result import build_result
    from synthetic_records import environment

    rounds = {"eager": 5.0, "graph": 2.6, "reference": 4.4}
    part = {"work": "saxpy from saxpy.cu on 1,048,576 elements", "calls": 200, "stop_reason": "spread",
            "ways": [{"name": w, "what": w} for w in rounds], "checks": {"eager": "passed", "graph": "passed"},
            "costs": {"capture_us": [20.0, 21.0], "instantiate_us": [9.0, 9.5], "upload_us": [1.0, 1.1], "nodes": 1},
            "values": {w: {c: [us * (1 + i / 500) for i in range(12)] for c in ("host", "wall", "device")}
                       for w, us in rounds.items()}}
    return build_result([part], config={"work": part["work"], "kind": "launches"}, env=environment()).to_dict()


def test_every_kind_the_cli_writes_has_a_renderer_and_renders():
    """Each record class of the package has its command's renderer in report.show, and a record of it (committed,
    inside a committed study record, or made here where none is committed) renders by it."""
    from cugraphlab.report.show import RENDERERS, render_record

    kinds = _package_kinds()
    assert set(kinds) - set(RENDERERS) == set(), "a kind without a renderer in report.show.RENDERERS"
    samples = {}
    for path in COMMITTED:
        d = json.loads(path.read_text())
        for kind in _kinds_inside(d, set()):
            samples.setdefault(kind, path)
    made = {"cugraphlab.pdl": _pdl_record(), "cugraphlab.measure": _measure_record()}
    assert set(kinds) - set(samples) - set(made) == set(), "a kind with no record to render"
    text = render_record(made["cugraphlab.pdl"])
    assert text.startswith("cugraphlab pdl: ") and "PDL early" in text
    text = render_record(made["cugraphlab.measure"])
    assert text.startswith("cugraphlab measure: saxpy") and "pays off after" in text


@pytest.mark.parametrize("name, suffixes", [
    ("2026-11-29_H200/2026-11-29_H200_timeline.json", ("_timeline.png", "_gaps.svg")),
    ("2026-12-01_H200_round4/2026-12-01_H200_diff_default.json", (".png", ".svg")),
    ("2026-11-30_2xH200_scale/2026-11-30_2xH200_scale.json", (".png", ".svg")),
])
def test_plot_draws_the_figures_of_the_kinds_that_draw(name, suffixes, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    stem = tmp_path / "figs" / "shown"
    assert cli.main(["show", str(RESULTS / name), "--plot", str(stem)]) == 0
    out = capsys.readouterr().out
    for suffix in suffixes:
        path = Path(f"{stem}{suffix}")
        assert path.is_file() and path.stat().st_size > 1000, path
        assert str(path) in out


def test_a_study_record_is_shown_plainly_with_where_its_script_is_named_and_its_records_by_kind(capsys):
    path = RESULTS / "2026-12-01_H200_round5" / "2026-12-01_H200_switch.json"
    assert cli.main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "cugraphlab.benchmarks.switch" in first and "named cugraphlab.study.switch now" in first  # an old name
    assert "a study's record" in first and "benchmarks/README.md names" in first
    assert "== records[0] (cugraphlab.switch)" in out and "cugraphlab switch" in out  # the switch tables


def test_plain_shows_a_record_this_version_cannot_rebuild(capsys):
    path = RESULTS / "2026-12-01_H200_round3" / "first_run_6556744" / "memnodes.json"
    assert cli.main(["show", str(path), "--plain"]) == 0
    out = capsys.readouterr().out
    assert "cugraphlab.memnodes" in out and "samples:" in out and "NVIDIA H200" in out


def test_render_record_is_public_and_the_kinds_docstring_example_runs():
    """``from cugraphlab.report import render_record`` (report's __all__), and the example of bench.records.kinds."""
    import cugraphlab as cgl
    import cugraphlab.report as report
    from cugraphlab.bench.records import kinds

    assert {"render_record", "plot_record"} <= set(report.__all__)
    example = textwrap.dedent(kinds.__doc__.split("::\n", 1)[1].split("\nHow:", 1)[0])
    path = str(RESULTS / "2026-12-01_H200_round4" / "2026-12-01_H200_memnodes.json")
    shown = {}
    exec(example.replace('"benchmarks/results/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json"', repr(path)),
         {"print": lambda text: shown.setdefault("text", text)})
    assert shown["text"] == report.render_record(cgl.load_record(path))
    assert shown["text"].startswith("cugraphlab memnodes: ")
