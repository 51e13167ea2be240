"""The course's two guides say what adds up and what was run (issue 33 section 6): the instructor guide's minutes
per notebook sum to the total it states, and that total fits the weeks it plans; the T4 table separates what was
run from what is inferred, and the compile count it quotes is the committed log's."""
from __future__ import annotations

import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = ROOT / "docs" / "course" / "instructor.md"
COURSE = ROOT / "docs" / "course" / "course.md"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _minutes() -> tuple[int, int]:
    lo = hi = 0
    rows = [line for line in INSTRUCTOR.read_text().splitlines() if re.match(r"^\| \d\d \|", line)]
    assert len(rows) == 16, rows
    for line in rows:
        cell = line.split("|")[3].strip()
        a, _, b = cell.partition("-")
        lo, hi = lo + int(a), hi + int(b or a)
    return lo, hi


def test_the_instructor_guide_minutes_add_up_to_its_total_and_its_weeks():
    text = " ".join(INSTRUCTOR.read_text().split())
    lo, hi = _minutes()
    stated = re.search(r"add up to (\d+)-(\d+)", text)
    assert stated and (int(stated[1]), int(stated[2])) == (lo, hi), (stated and stated[0], lo, hi)
    plan = re.search(r"two (\d+)-minute sessions a week that is (\w+) to (\w+) weeks", text)
    assert plan, "the guide's plan (sessions a week, weeks) is gone: update this test with it"
    week = 2 * int(plan[1])
    assert WORDS[plan[2]] <= lo / week and hi / week <= WORDS[plan[3]], (lo / week, hi / week, plan[0])
    assert math.ceil(hi / week) <= WORDS[plan[3]]


def test_the_t4_table_says_no_t4_was_run_and_quotes_the_compile_log():
    text = " ".join(COURSE.read_text().split())
    assert "No T4 was run." in text and "Inferred, not run:" in text and "(inferred)" in text
    log = re.search(r"log: `(benchmarks/results/[^`]+sm75_compile\.log)`", text)
    assert log, "the T4 section no longer names its compile log"
    last = (ROOT / log[1]).read_text().strip().splitlines()[-1]
    done = re.fullmatch(r"# (\d+) compiled, (\d+) failed", last)
    assert done, last
    assert f"{done[1]} of {int(done[1]) + int(done[2])}" in text, (last, "the count quoted in course.md")
