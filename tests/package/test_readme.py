"""README.md starts where a newcomer starts, and every link and path it or docs/ names exists (no GPU).

- README.md is at most 250 lines, with its "Start here" section in the first 60;
- its first two code blocks are the two commands for a fresh machine (the main job, the tests), and CI (.ci/run)
  installs and tests as the second says;
- every relative link in README.md, docs/**/*.md and benchmarks/README.md points to a file or folder that exists, and
  a link's #anchor to a heading of its target;
- every repository path written in backticks there (``benchmarks/...``, ``cugraphlab/...``, ``examples/...``) exists,
  so a module or script that moved cannot be named at its old place;
- the course table's markers (rewritten by notebooks/build.py) are there once each.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAIN_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[cupy,plot]' && .venv/bin/cugraphlab run"
TEST_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' "
                "&& .venv/bin/python -m pytest -q -n auto --dist loadgroup")
#: files other changes of this round add (issue 25's docs/measure.md, linked from the README's "Measure your own
#: work"): a link or path to one of them may wait for its merge. TODO coordinator: empty this once it is merged.
PENDING: set[str] = set()
PATH_ROOTS = ("benchmarks/", "cugraphlab/", "examples/", "docs/", "notebooks/", "tests/", "kernels/", "constraints/")


def _documents() -> list[Path]:
    return [README, ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _code_blocks(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^ *```[\w-]*\n(.*?)^ *```", text, re.M | re.S)]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces as hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^ *```.*?^ *```", "", path.read_text(), flags=re.M | re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} +(.+?) *$", text, re.M)}


def _links(text: str) -> list[str]:
    text = re.sub(r"^ *```.*?^ *```", "", text, flags=re.M | re.S)
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_readme_is_short_and_starts_where_a_newcomer_starts():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250: detail goes to docs/)"
    start = [i for i, line in enumerate(lines, 1) if re.match(r"#+ +Start here\b", line)]
    assert start and start[0] <= 60, f"'Start here' must be a heading in the first 60 lines, found at {start}"


def test_the_first_two_code_blocks_are_the_two_commands():
    blocks = _code_blocks(README.read_text())
    assert blocks[:2] == [MAIN_COMMAND, TEST_COMMAND]


def test_ci_installs_and_tests_as_the_readme_says():
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST_COMMAND.replace("pip install -e", "pip install -q -e") in ci


@pytest.mark.parametrize("doc", _documents(), ids=_rel)
def test_every_relative_link_resolves(doc):
    bad = []
    for link in _links(doc.read_text()):
        if re.match(r"[a-z]+:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        dest = (doc.parent / target).resolve() if target else doc
        if target and not dest.exists():
            if _rel(dest) not in PENDING:
                bad.append(f"{link}: no such file")
            continue
        if anchor and dest.is_file() and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{link}: no heading with that anchor in {_rel(dest)}")
    assert not bad, f"{_rel(doc)}: " + "; ".join(bad)


def _expand(path: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in _expand(path[:m.start()] + alt + path[m.end():])]


@pytest.mark.parametrize("doc", _documents(), ids=_rel)
def test_every_path_in_backticks_exists(doc):
    bad = []
    for code in re.findall(r"`([^`\n]+)`", doc.read_text()):
        for word in code.split():
            word = word.rstrip(".,;:)")
            if not word.startswith(PATH_ROOTS) or "..." in word or "<" in word or "*" in word or "NN_" in word:
                continue
            for path in _expand(word):
                if not (ROOT / path).exists() and path.rstrip("/") not in PENDING:
                    bad.append(path)
    assert not bad, f"{_rel(doc)} names paths that do not exist: {sorted(set(bad))}"


def test_the_course_table_markers_are_there_once():
    text = README.read_text()
    assert text.count("<!-- course table:") == 1 and text.count("<!-- end of course table -->") == 1
    assert text.index("<!-- course table:") < text.index("<!-- end of course table -->")
