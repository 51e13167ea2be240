"""One rule names every record kind (``bench/records/names.py``): ``cugraphlab.<command>`` for what a command writes,
``cugraphlab.study.<name>`` for what a script under benchmarks/ writes; the older names are read through one table.

Checked on the code (every kind string the package and the scripts write, found by walking their syntax trees), on
benchmarks/README.md (which names the script of each study kind) and on the committed records (each one's kind reads
as a kind of the rule).
"""
from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

import pytest

from cugraphlab.bench.records import names
from cugraphlab.bench.records.kinds import record_class, record_kinds
from cugraphlab.bench.records.names import HARNESS_KINDS, OLD_KINDS, PREFIX, STUDY_PREFIX, kind_now
from cugraphlab.bench.records.record import RecordError, check_record

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def _commands() -> set[str]:
    from cugraphlab.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def written_kinds(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, kind) of every kind string the code writes: a ``"kind": "cugraphlab..."`` item of a dict literal, and
    an assignment of such a string to a name ending in KIND (``KIND``, ``RECORD_KIND``, a ClassVar)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if (isinstance(k, ast.Constant) and k.value == "kind" and isinstance(v, ast.Constant)
                        and isinstance(v.value, str) and v.value.startswith(PREFIX)):
                    out.append((v.lineno, v.value))
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        names = [t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in targets]
        if (any(n.endswith("KIND") for n in names) and isinstance(value, ast.Constant) and isinstance(value.value, str)
                and value.value.startswith(PREFIX)):
            out.append((value.lineno, value.value))
    return out


def _sources(folder: str) -> list[Path]:
    return [p for p in (ROOT / folder).rglob("*.py") if "results" not in p.relative_to(ROOT).parts]


def _written(folder: str) -> list[tuple[str, int, str]]:
    return [(str(p.relative_to(ROOT)), line, kind) for p in _sources(folder)
            for line, kind in written_kinds(ast.parse(p.read_text(), str(p)))]


def readme_table() -> dict[str, tuple[str, str]]:
    """benchmarks/README.md's table of study kinds: kind -> (script cell, old name cell)."""
    text = (ROOT / "benchmarks" / "README.md").read_text()
    rows = re.findall(r"^\| `(cugraphlab\.study\.[\w.]+)` \| (.+?) \|\s*(.*?)\s*\|$", text, re.M)
    return {kind: (script, old.strip("` ")) for kind, script, old in rows}


def test_every_record_class_of_the_package_is_named_for_its_command():
    commands = _commands()
    for kind, cls in record_kinds().items():
        if not cls.__module__.startswith("cugraphlab."):
            continue  # a study's class, imported by another test
        assert kind in HARNESS_KINDS or kind.removeprefix(PREFIX) in commands, f"{cls.__qualname__}: {kind}"


def test_the_package_writes_only_kinds_of_its_classes():
    known = set(record_kinds()) | {"cugraphlab.record"}
    written = _written("cugraphlab")
    assert len(written) >= 18, written  # the walk finds the classes' KINDs
    for where, line, kind in written:
        assert kind in known and kind not in OLD_KINDS, f"{where}:{line}: {kind}"


def test_the_scripts_write_only_study_kinds_each_named_in_the_readme():
    table = readme_table()
    written = _written("benchmarks")
    assert len(written) >= 15, written
    for where, line, kind in written:
        assert kind.startswith(STUDY_PREFIX) and kind not in OLD_KINDS, f"{where}:{line}: {kind} breaks the rule"
        assert kind in table, f"{where}:{line}: {kind} is not in benchmarks/README.md's table of study kinds"


def test_the_readme_table_names_real_scripts_and_the_old_names_of_the_table():
    table = readme_table()
    for kind, (script, old) in table.items():
        path = re.match(r"`([\w/.]+\.py)`", script)
        assert path and (ROOT / "benchmarks" / path.group(1)).is_file(), f"{kind}: {script}"
        if old:
            assert OLD_KINDS.get(old) == kind, f"{kind}: README says it was {old}"
    assert {new for new in OLD_KINDS.values()} <= set(table), "an old name maps to a kind the README does not list"


def test_every_committed_record_reads_as_a_kind_of_the_rule():
    package, table = set(record_kinds()), readme_table()
    seen: set[str] = set()

    def walk(x):
        if isinstance(x, dict):
            if isinstance(x.get("kind"), str) and x["kind"].startswith(PREFIX):
                seen.add(x["kind"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for path in RESULTS.rglob("*.json"):
        try:
            walk(json.loads(path.read_text()))
        except (ValueError, UnicodeDecodeError):
            continue
    # every old name is one found, or one a script wrote only when it failed (none committed)
    assert len(seen) > 30 and set(OLD_KINDS) - seen == {"cugraphlab.devlaunch.failure"}, set(OLD_KINDS) - seen
    for kind in seen:
        now = kind_now(kind)
        assert now in package or now in table, f"{kind} (read as {now}) is neither a command's nor a listed study's"


def test_an_old_name_reads_as_its_name_now():
    assert kind_now("cugraphlab.benchmarks.switch") == names.study_kind("switch")
    assert names.is_study_kind("cugraphlab.floor") and names.is_study_kind("cugraphlab.study.floor")
    assert kind_now("cugraphlab.run") == names.command_kind("run") and not names.is_study_kind("cugraphlab.run")
    check_record({"kind": "cugraphlab.latency-probe"}, kind="cugraphlab.study.diff_check.probe")
    with pytest.raises(RecordError, match="not cugraphlab.run"):
        check_record({"kind": "cugraphlab.floor"}, kind="cugraphlab.run")
    with pytest.raises(RecordError, match="known:"):
        record_class("cugraphlab.benchmarks.switch")  # a study kind: no class in the package


def test_the_walk_finds_what_it_must():
    code = 'KIND = "cugraphlab.x"\nclass A:\n    KIND: str = "cugraphlab.y"\nd = {"kind": "cugraphlab.z", "k": 1}\n' \
           'e = {"kind": "example"}\nRECORD_KIND = "cugraphlab.w"\nother = "cugraphlab.v"\n'
    assert sorted(k for _, k in written_kinds(ast.parse(code))) == ["cugraphlab.w", "cugraphlab.x", "cugraphlab.y",
                                                                   "cugraphlab.z"]
