"""A saved record printed as the command that wrote it printed it, and drawn: ``cugraphlab show``, and notebooks.

    import cugraphlab as cgl
    from cugraphlab.report import plot_record, render_record

    record = cgl.load_record("benchmarks/results/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json")
    print(render_record(record))           # the tables `cugraphlab memnodes` printed on the H200
    plot_record(record, "figs/memnodes")   # for the kinds that draw (timeline, sweep, compare, scale, scaling, diff)

No device, no driver: a record made on a GPU machine shows the same on any machine. ``RENDERERS`` holds, for each
kind a command writes, the report function its command prints with (``report/<family>.py``); ``PLOTTERS`` the
figure its ``--plot`` / ``--out`` draws. A record whose kind has no class in the package (the studies' and the
benchmark scripts' records: their classes and reports live in ``benchmarks/``), or which holds no kind at all but
records inside it, is shown plainly (``report.plain``), its records inside rendered by their kinds; ``STUDY_SCRIPTS``
names the script that wrote each such kind, whose own report reads it best.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from ..bench.records.record import Record, RecordError
from .plain import render_plain

__all__ = ["RENDERERS", "PLOTTERS", "STUDY_SCRIPTS", "render_record", "plot_record", "has_plot", "read_shown",
           "json_type_words"]


def _call(spec: str, *args):
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args)


def _run(r, written):
    text = _call("run:render_run", r)
    if getattr(r, "compare", None):  # run --compare printed the baselines under the run table
        from ..bench.compare.records import CompareResult

        text += "\n\n" + _call("compare:render_baseline_rows", CompareResult.from_dict(r.compare),
                               r.config.get("size"))
    return text


def _scale_dict(r) -> dict:
    """The plain form ``cugraphlab scale`` renders and plots, with its findings (computed where the file has none)."""
    data = r.to_dict()
    if not data.get("findings"):
        data["findings"] = _call("scale:findings", data)
    return data


def _doctor(r, written):
    cupti = bool((r.config or {}).get("cupti"))
    return _call("doctor_cupti:render_doctor_cupti" if cupti else "doctor:render_doctor", r)


def _simple(spec: str, with_written: bool = False) -> Callable:
    return (lambda r, written: _call(spec, r, written)) if with_written else (lambda r, written: _call(spec, r))


#: kind -> function(record, written figure paths) -> the text its command printed
RENDERERS: dict[str, Callable[[Any, list], str]] = {
    "cugraphlab.run": _run,
    "cugraphlab.latency": _simple("measure:render_latency"),
    "cugraphlab.timeline": _simple("measure:render_timeline", True),
    "cugraphlab.sweep": _simple("measure:render_sweep", True),
    "cugraphlab.compare": _simple("compare:render_compare"),
    "cugraphlab.scale": lambda r, written: _call("scale:render_scale", _scale_dict(r), written),
    "cugraphlab.scaling": _simple("scaling:render_scaling", True),
    "cugraphlab.update": _simple("graphs:render_update"),
    "cugraphlab.conditional": _simple("graphs:render_conditional"),
    "cugraphlab.pdl": _simple("pdl:render_pdl"),
    "cugraphlab.nodes": _simple("nodes:render_nodes"),
    "cugraphlab.memnodes": _simple("memnodes:render_memnodes"),
    "cugraphlab.switch": _simple("switch:render_switch"),
    "cugraphlab.devlaunch": _simple("devlaunch:render_devlaunch"),
    "cugraphlab.doctor": _doctor,
    "cugraphlab.diff": _simple("diff:render_diff"),
    "cugraphlab.paired": _simple("paired:render_paired"),
    # cugraphlab measure's record (bench/measure/result.py), rendered by report/measure_work.py
    "cugraphlab.measure": _simple("measure_work:render_measure"),
}

#: kind -> function(record, stem) -> the figure files written, for the kinds whose command draws
PLOTTERS: dict[str, Callable[[Any, Path], list]] = {
    "cugraphlab.timeline": lambda r, stem: _call("measure:plot_timeline_files", r, stem),
    "cugraphlab.sweep": lambda r, stem: _call("measure:plot_sweep_files", r, stem),
    "cugraphlab.compare": lambda r, stem: _call("plots.compare:plot_compare_stacks", r, stem),
    "cugraphlab.scale": lambda r, stem: _call("plots.scale:plot_scale", _scale_dict(r), stem),
    "cugraphlab.scaling": lambda r, stem: _call("scaling:plot_scaling", r, stem),
    "cugraphlab.diff": lambda r, stem: _call("diff:plot_diff", r, stem),
}

#: kinds written by scripts under benchmarks/ (their classes and reports are not part of the package) -> the script
STUDY_SCRIPTS: dict[str, str] = {
    "cugraphlab.benchmark.classic": "benchmarks/classic.py",
    "cugraphlab.benchmark.core_overhead": "benchmarks/core_overhead.py",
    "cugraphlab.benchmark.tune_launch_config": "benchmarks/tune_launch_config.py",
    "cugraphlab.benchmarks.switch": "benchmarks/switch.py",
    "cugraphlab.benchmarks.while_fold": "benchmarks/while_fold.py",
    "cugraphlab.benchmarks.floor": "benchmarks/studies/floor/run.py",
    "cugraphlab.floor": "benchmarks/studies/floor/run.py",
    "cugraphlab.floor_studies": "benchmarks/studies/floor/run_studies.py",
    "cugraphlab.benchmarks.exec_update": "benchmarks/studies/exec_update/run.py",
    "cugraphlab.exec_update_paired": "benchmarks/studies/exec_update/run.py",
    "cugraphlab.latency-probe": "benchmarks/diff_check.py",
}


def has_plot(kind: str) -> bool:
    """Whether a record of ``kind`` has figures (``plot_record``)."""
    return kind in PLOTTERS


def _package_kinds() -> dict[str, type]:
    from ..bench.records.kinds import record_kinds

    return record_kinds()


def _as_record(record: Record | Mapping[str, Any], source: str) -> Record | Mapping[str, Any]:
    """A Record as it is; a record's dict as the Record of its kind when the package has that kind (RecordError
    when it has but cannot read this one), else the dict itself (shown plainly)."""
    if isinstance(record, Record):
        return record
    if not isinstance(record, Mapping):
        raise RecordError(f"{source} holds {json_type_words(record)}, not a record (a JSON object)")
    if record.get("kind") in _package_kinds():
        from ..bench.records.kinds import record_from_dict

        return record_from_dict(record, source=source)
    return record


def render_record(record: Record | Mapping[str, Any], written=(), *, source: str = "record",
                  plain_fallback: bool = False) -> str:
    """The text the command that made ``record`` printed: ``record`` is a Record (``cugraphlab.load_record``) or
    the dict of one read from its JSON file; ``written``: figure paths to name, as the command did. A dict of a
    kind the package has no class for is shown plainly (``report.plain``), with the script that wrote it.

    Raises RecordError (one line) for a JSON value that is not an object, or a record of a package kind that this
    version cannot rebuild (another schema, a shape from before schema 1). With ``plain_fallback`` (``cugraphlab
    show``) only a record of a newer schema than this version reads raises: a JSON list and a record of an older
    schema or shape are shown plainly, headed by why."""
    if plain_fallback:
        return _render_or_plain(record, written, source)
    r = _as_record(record, source)
    if isinstance(r, Record):
        render = RENDERERS.get(r.KIND)
        if render is not None:
            try:
                return render(r, list(written))
            except (AttributeError, KeyError, TypeError, ValueError, IndexError) as e:
                from ..bench.records.kinds import shape_words

                raise RecordError(f"{source} ({r.KIND}) cannot be shown by this version ({shape_words(e)}); "
                                  f"cugraphlab show --plain shows its fields") from e
        return render_plain(r.to_dict(), _title(r.to_dict(), source), _inner)
    return render_plain(r, _title(r, source), _inner)


def _newer_schema(d: Mapping[str, Any]) -> bool:
    cls = _package_kinds().get(d.get("kind"))
    got = d.get("schema")
    return (cls is not None and isinstance(got, int) and not isinstance(got, bool)
            and got > getattr(cls, "SCHEMA", got))


def _render_or_plain(record, written, source: str) -> str:
    """``render_record``, else the record shown plainly under a first line saying why it is not shown as its
    command showed it; a record of a newer schema (written by a newer cugraphlab) is refused (RecordError)."""
    if isinstance(record, list):
        return render_plain({"items": record}, f"{source}: a JSON list of {len(record)} item(s), not one record; "
                                               f"its items shown plainly", _inner)
    try:
        return render_record(record, written, source=source)
    except RecordError as e:
        if not isinstance(record, Mapping) or _newer_schema(record):
            raise
        why = str(e).split(f"{source} ", 1)[-1].split("; cugraphlab show --plain")[0]
        return render_plain(record, f"{source} {why}; its fields, shown plainly", _inner)


def plot_record(record: Record | Mapping[str, Any], stem: str | os.PathLike, *, source: str = "record") -> list:
    """The figures of ``record`` (a Record, or its dict), written as its command's ``--plot STEM`` (``--out`` for
    timeline and sweep) writes them; returns the paths. RecordError (one line) for a kind that draws none."""
    from .files import stem_path

    r = _as_record(record, source)
    kind = r.KIND if isinstance(r, Record) else r.get("kind")
    if not isinstance(r, Record) or kind not in PLOTTERS:
        raise RecordError(f"{source} ({kind or 'no kind'}) has no figure: the records that draw are "
                          f"{', '.join(k.split('.', 1)[1] for k in PLOTTERS)}")
    return list(PLOTTERS[kind](r, stem_path(stem)))


def read_shown(path: str | os.PathLike) -> Any:
    """The JSON value in ``path``; RecordError in one line when it cannot be read or is not JSON
    (``bench.records.kinds.read_json``, the one reader of record files)."""
    from ..bench.records.kinds import read_json

    return read_json(path)


def _inner(d: Mapping[str, Any], path: str) -> str:
    """A record inside a plainly shown one: by its kind where the package renders it, else plainly."""
    try:
        return render_record(d, source=path)
    except RecordError as e:
        return f"({e})"


def _title(d: Mapping[str, Any], source: str) -> str:
    kind = d.get("kind")
    schema = f", schema {d['schema']}" if d.get("schema") is not None else ""
    if kind is None:
        return f"{source}: no kind of its own; its fields, and the records inside it"
    script = STUDY_SCRIPTS.get(kind)
    where = (f"written by {script}, whose report reads it best" if script
             else "a kind this version of cugraphlab has no report for")
    return f"{source}: {kind}{schema} ({where}); its fields, shown plainly"


def json_type_words(value: Any) -> str:
    """What a JSON value is, in JSON's words: ``a JSON list``, ``JSON null``, ``a JSON string`` ..."""
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return f"JSON {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return "a JSON number"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, list):
        return "a JSON list"
    return "a JSON value"
