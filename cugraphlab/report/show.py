"""A saved record printed as the command that wrote it printed it, and drawn: ``cugraphlab show``, and notebooks.

    import cugraphlab as cgl
    from cugraphlab.report import plot_record, render_record

    record = cgl.load_record("benchmarks/results/2026-12-01_H200_round4/2026-12-01_H200_memnodes.json")
    print(render_record(record))           # the tables `cugraphlab memnodes` printed on the H200
    plot_record(record, "figs/memnodes")   # for the kinds that draw (timeline, sweep, compare, scale, scaling, diff)

No device, no driver: a record made on a GPU machine shows the same on any machine. ``RENDERERS`` holds, for each
record class of the package (keyed by the class's KIND), the report function its command prints with
(``report/<family>.py``); ``PLOTTERS`` the figure its ``--plot`` / ``--out`` draws. A record whose kind has no class
in the package (a study's, ``cugraphlab.study.<name>``: its class and report live in ``benchmarks/``, whose README
names the script of each), or which holds no kind at all but records inside it, is shown plainly
(``report.plain``), its records inside rendered by their kinds.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from ..bench.compare.records import CompareResult
from ..bench.diff import DiffResult
from ..bench.doctor import DoctorResult
from ..bench.graphs.conditional import WhileResult
from ..bench.graphs.devlaunch import DevlaunchResult
from ..bench.graphs.memnodes import MemnodesResult
from ..bench.graphs.nodes import NodesResult
from ..bench.graphs.pdl import PdlResult
from ..bench.graphs.switch import SwitchResult
from ..bench.graphs.update import UpdateCosts
from ..bench.measure.latency import LatencyResult
from ..bench.measure.result import MeasureResult
from ..bench.measure.sweep import SweepResult
from ..bench.measure.timeline import TimelineResult
from ..bench.paired.harness import PairedResult
from ..bench.records.names import is_study_kind, kind_now
from ..bench.records.record import Record, RecordError
from ..bench.run import RunResult
from ..bench.scale.run import ScaleResult
from ..bench.scaling.analysis import ScalingResult
from .plain import render_plain

__all__ = ["RENDERERS", "PLOTTERS", "render_record", "plot_record", "has_plot", "read_shown",
           "json_type_words"]


def _call(spec: str, *args):
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args)


def _run(r, written):
    text = _call("run:render_run", r)
    if getattr(r, "compare", None):  # run --compare printed the baselines under the run table
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


def _by_kind(table: Mapping[type, Callable]) -> dict[str, Callable]:
    """A table keyed by record classes, keyed by their kinds (the classes name them; none is typed twice)."""
    return {cls.KIND: fn for cls, fn in table.items()}


#: kind -> function(record, written figure paths) -> the text its command printed
RENDERERS: dict[str, Callable[[Any, list], str]] = _by_kind({
    RunResult: _run,
    LatencyResult: _simple("measure:render_latency"),
    TimelineResult: _simple("measure:render_timeline", True),
    SweepResult: _simple("measure:render_sweep", True),
    CompareResult: _simple("compare:render_compare"),
    ScaleResult: lambda r, written: _call("scale:render_scale", _scale_dict(r), written),
    ScalingResult: _simple("scaling:render_scaling", True),
    UpdateCosts: _simple("graphs:render_update"),
    WhileResult: _simple("graphs:render_conditional"),
    PdlResult: _simple("pdl:render_pdl"),
    NodesResult: _simple("nodes:render_nodes"),
    MemnodesResult: _simple("memnodes:render_memnodes"),
    SwitchResult: _simple("switch:render_switch"),
    DevlaunchResult: _simple("devlaunch:render_devlaunch"),
    DoctorResult: _doctor,
    DiffResult: _simple("diff:render_diff"),
    PairedResult: _simple("paired:render_paired"),
    MeasureResult: _simple("measure_work:render_measure"),  # cugraphlab measure's record, report/measure_work.py
})

#: kind -> function(record, stem) -> the figure files written, for the kinds whose command draws
PLOTTERS: dict[str, Callable[[Any, Path], list]] = _by_kind({
    TimelineResult: lambda r, stem: _call("measure:plot_timeline_files", r, stem),
    SweepResult: lambda r, stem: _call("measure:plot_sweep_files", r, stem),
    CompareResult: lambda r, stem: _call("plots.compare:plot_compare_stacks", r, stem),
    ScaleResult: lambda r, stem: _call("plots.scale:plot_scale", _scale_dict(r), stem),
    ScalingResult: lambda r, stem: _call("scaling:plot_scaling", r, stem),
    DiffResult: lambda r, stem: _call("diff:plot_diff", r, stem),
})


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
    from ..core.files import stem_path

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
    now = kind_now(kind)
    renamed = "" if now == kind else f" (its kind is named {now} now)"
    if is_study_kind(kind):
        where = (f"a study's record{renamed}, written by a script under benchmarks/ that benchmarks/README.md names "
                 "and whose report reads it best")
    else:
        where = f"a kind this version of cugraphlab has no report for{renamed}"
    return f"{source}: {kind}{schema}: {where}; its fields, shown plainly"


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
