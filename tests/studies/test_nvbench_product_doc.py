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


ROUND10 = ROOT / "benchmarks" / "results" / "2026-12-04_H200_round10"
#: the table's process column -> its log
_COLD_SMALL = {"1": "2026-12-04_H200_cold_small_1.log", "2": "2026-12-04_H200_cold_small_2.log",
               "3": "2026-12-04_H200_cold_small_3.log", "4": "2026-12-04_H200_cold_small_4_product.log"}
_VARIANT_ROWS = ("nvbench", "nvbench no-throttle", "cgl cold", "+ sync", "+ stamp", "cgl.measure")


def test_the_cold_gap_table_quotes_the_cold_small_logs():
    """Every median of the round-10 table is that workload's and recipe's median in the process's log (before /
    after cuda-bench as the log's two columns)."""
    text = DOC.read_text()
    lines = text[text.index("### The 1,024-float cold gap, taken apart"):].splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("| process"))
    rows = [ln for ln in lines[first + 2:first + 20] if ln.startswith("| ")]
    rows = rows[:next((i for i, r in enumerate(rows) if not r[2].isdigit()), len(rows))]
    assert len(rows) == 9
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        process, workload, figures = cells[0], cells[1], cells[2:]
        log = (ROUND10 / _COLD_SMALL[process]).read_text().splitlines()
        for recipe, cell in zip(_VARIANT_ROWS, figures):
            if not cell:
                continue
            line = next(ln for ln in log if ln.startswith(f"{workload:<11} {recipe:<22}"))
            medians = re.findall(r"(\d+\.\d{3}) / +\d+\.\d{3}", line)
            assert cell.split(" / ") == medians, (process, workload, recipe, cell, medians)


def test_the_products_goal_line_is_the_logs():
    text = (ROUND10 / _COLD_SMALL["4"]).read_text()
    assert "cgl.measure: 4 of 6" in text
    for figure in ("add 1,024: cgl.measure: -0.016 (-0.051)", "mul 1,024: cgl.measure: -0.144 (-0.082)",
                   "relu 1,024: cgl.measure: -0.080 (-0.105)"):
        assert figure in text, figure
