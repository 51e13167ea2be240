"""The product study's tables in docs/studies/nvbench.md quote the committed H200 logs: every "median (mean)" pair in
the cold table, and every held figure, appears on that workload's line of the log it names."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "studies" / "nvbench.md"
LOGS = ROOT / "benchmarks" / "results" / "2026-12-04_H200_round9"
PAIR = re.compile(r"\d+\.\d{3} \(\d+\.\d{3}\)")


def _section(title: str) -> list[str]:
    """The rows of the first table under ``title``."""
    text = DOC.read_text()
    lines = text[text.index(title):].splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("| workload"))
    rows = []
    for ln in lines[first + 2:]:
        if not ln.startswith("| "):
            break
        rows.append(ln)
    return rows


def _lines(log: str, workload: str) -> list[str]:
    return [ln for ln in (LOGS / log).read_text().splitlines() if re.match(re.escape(workload) + r" +[\dn]", ln)]


def test_cold_table_quotes_both_compare_logs():
    rows = _section("### Cold: one call after an L2 flush")
    assert len(rows) == 14
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        workload = cells[0]
        api = " ".join(_lines("2026-12-04_H200_nvbench_compare.log", workload))
        cli = " ".join(_lines("2026-12-04_H200_nvbench_compare_cli.log", workload))
        for cell in (cells[1], cells[2]):
            for pair in PAIR.findall(cell):
                assert pair in api, (workload, pair)
        for pair in PAIR.findall(cells[4]):
            assert pair in cli, (workload, pair)


def test_held_table_quotes_both_compare_logs():
    rows = _section("### Held: the GPU's own time per call")
    assert len(rows) == 14
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        workload = re.sub(r" \(.*\)$", "", cells[0])
        api = " ".join(_lines("2026-12-04_H200_nvbench_compare.log", workload))
        cli = " ".join(_lines("2026-12-04_H200_nvbench_compare_cli.log", workload))
        nvb = cells[1].split()[0]
        assert f"({nvb})" in api and f"({nvb})" in cli, (workload, nvb)
        assert cells[2] + " (" in api, (workload, cells[2])
        assert cells[4] + " (" in cli, (workload, cells[4])


def test_recipes_figures_are_the_logs():
    log = (LOGS / "2026-12-04_H200_nvbench_recipes.log").read_text()
    text = DOC.read_text()
    for figure in ("4.640", "3.888", "3.528", "3.372", "3.298", "3.257", "2.442", "2.453"):
        assert figure in text and figure in log, figure
    assert "113.528" in log and "2.442" in log  # the two graphs of 50 adds: 113.5 and 50 x 2.442 = 122.1
