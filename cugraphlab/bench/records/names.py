"""How a record's kind is named: one rule, and the names written before it, read through one table.

- A record a ``cugraphlab`` command writes is ``cugraphlab.<command>`` (``cugraphlab.run``, ``cugraphlab.measure``,
  ``cugraphlab.scaling`` ...). ``cugraphlab.paired`` is the one record of the package no command writes alone: the
  paired harness (``measure_paired``), whose record ``compare``, ``scaling`` and ``switch`` carry inside theirs.
- A record a script under ``benchmarks/`` writes (a study, a benchmark's summary) is ``cugraphlab.study.<name>``,
  ``<name>`` the study's, with a dotted part for one of several records it writes
  (``cugraphlab.study.floor.result``). The package has no class and no report for these; ``cugraphlab show`` shows
  them plainly, and ``benchmarks/README.md`` lists which script writes each.

Records committed before the rule (``benchmarks/results/`` holds them) carry the older names; ``kind_now`` reads
them as the names they have now, so a class, ``cugraphlab show`` and ``cugraphlab diff`` take either. Nothing
writes an old name any more (a test checks every kind the package and ``benchmarks/`` write).
"""
from __future__ import annotations

__all__ = ["PREFIX", "STUDY_PREFIX", "HARNESS_KINDS", "OLD_KINDS", "kind_now", "is_study_kind", "command_kind",
           "study_kind"]

PREFIX = "cugraphlab."
STUDY_PREFIX = "cugraphlab.study."

#: records of the package that no command writes alone (the rule's one exception, above)
HARNESS_KINDS = ("cugraphlab.paired",)

#: kind written before the naming rule -> its name now (every one found in a committed record, and the one
#: benchmarks/devlaunch.py wrote when it failed)
OLD_KINDS: dict[str, str] = {
    "cugraphlab.benchmark.classic": "cugraphlab.study.classic",
    "cugraphlab.benchmark.core_overhead": "cugraphlab.study.core_overhead",
    "cugraphlab.benchmark.tune_launch_config": "cugraphlab.study.tune_launch_config",
    "cugraphlab.benchmarks.switch": "cugraphlab.study.switch",
    "cugraphlab.benchmarks.while_fold": "cugraphlab.study.while_fold",
    "cugraphlab.benchmarks.floor": "cugraphlab.study.floor",
    "cugraphlab.floor": "cugraphlab.study.floor.result",
    "cugraphlab.floor_studies": "cugraphlab.study.floor.studies",
    "cugraphlab.benchmarks.exec_update": "cugraphlab.study.exec_update",
    "cugraphlab.exec_update_paired": "cugraphlab.study.exec_update.paired",
    "cugraphlab.latency-probe": "cugraphlab.study.diff_check.probe",
    "cugraphlab.measure_overhead": "cugraphlab.study.measure_overhead",
    "cugraphlab.measure_overhead_parts": "cugraphlab.study.measure_overhead_parts",
    "cugraphlab.plugin_false_alarms": "cugraphlab.study.plugin_false_alarms",
    "cugraphlab.devlaunch.failure": "cugraphlab.study.devlaunch.failure",
    "cugraphlab.nvbench-study": "cugraphlab.study.nvbench",
}


def kind_now(kind: str) -> str:
    """The name ``kind`` has under the rule: an old name's new one, any other kind as it is."""
    return OLD_KINDS.get(kind, kind)


def is_study_kind(kind: str) -> bool:
    """Whether ``kind`` (old name or new) is a record of a script under ``benchmarks/``."""
    return kind_now(kind).startswith(STUDY_PREFIX)


def command_kind(command: str) -> str:
    """The kind of the record ``cugraphlab <command>`` writes."""
    return PREFIX + command


def study_kind(name: str) -> str:
    """The kind of a record written by the study or benchmark script ``name`` (``"floor.result"``: a part)."""
    return STUDY_PREFIX + name
