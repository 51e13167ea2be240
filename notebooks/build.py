"""Build the course notebooks (notebooks/NN_name.ipynb) from their readable sources (notebooks/src/NN_name.py).

A source is Python in "percent" cells, one header line per cell:

    # %% [markdown]              a markdown cell: the comment lines below it, "# " stripped
    # %%                         a code cell, run as written
    # %% [gpu] what it does      a code cell that needs a GPU: wrapped as
                                     if not GPU:
                                         print("needs a GPU: what it does")
                                     else:
                                         <the cell, indented>
    # %% [gpu sm90] what         also needs sm_90 or newer (PDL, device graph launch): one more line says so
    # %% [gpu cuda12.3] what     also needs a driver for CUDA 12.3 or newer (WHILE and IF nodes)
    # %% [gpu cuda12.8] what     also needs a driver for CUDA 12.8 or newer (IF/ELSE, SWITCH)
    # %% [record] what it shows  a CPU cell drawing from a committed H200 record (benchmarks/results/...): runs
                                     everywhere, so a reader without a GPU sees the H200's tables and figures

Every notebook gets the two cells of src/_setup.py (install the right extra, open the GPU or say there is none)
right after its first (title) cell, and an "Open in Colab" badge cell before it. GPU cells carry the cell tag
"gpu", record cells the tag "record", so that tests can find them. Outputs are not written here: a rebuilt notebook
keeps the outputs of every code cell whose source did not change (the committed H200 run), matched by cell id, else
by source; new cells come out unexecuted (`--check` ignores outputs).

The Colab links (the badge cell of each notebook, the course table in README.md, and where a notebook on Colab
fetches the committed records from) are built from one value, the repository's GitHub OWNER/REPO, kept in
notebooks/colab_repo.txt (the placeholder "OWNER/REPO" until someone sets it; never guessed):

    python3 notebooks/build.py                     # write every notebook and README's course table
    python3 notebooks/build.py --check             # exit 1 when a notebook or the table differs from its source
    python3 notebooks/build.py --colab OWNER/REPO  # set the repository, then rewrite the badges and the table

Writes nbformat 4.5 JSON itself (no jupytext, no nbformat needed).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
SETUP = SRC / "_setup.py"
README = HERE.parent / "README.md"
REPO_FILE = HERE / "colab_repo.txt"
PLACEHOLDER = "OWNER/REPO"
REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
TABLE_BEGIN = "<!-- course table: written by python3 notebooks/build.py; do not edit by hand -->"
TABLE_END = "<!-- end of course table -->"
BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
HEADER = re.compile(r"^# %%(?:\s*\[(?P<tag>[^\]]*)\])?\s*(?P<rest>.*)$")
NEEDS = {
    "sm90": ('elif dev.compute_capability < (9, 0):\n'
             '    print(f"needs sm_90 or newer (this GPU is {dev.arch}): the committed notebook shows the H200\'s '
             'output")\n'),
    "cuda12.3": ('elif DRIVER < (12, 3):\n'
                 '    print(f"needs a driver for CUDA 12.3 or newer (this one: CUDA {DRIVER[0]}.{DRIVER[1]}): the '
                 'committed notebook shows the H200\'s output")\n'),
    "cuda12.8": ('elif DRIVER < (12, 8):\n'
                 '    print(f"needs a driver for CUDA 12.8 or newer (this one: CUDA {DRIVER[0]}.{DRIVER[1]}): the '
                 'committed notebook shows the H200\'s output")\n'),
}


def parse(text: str) -> list[dict]:
    """The cells of a percent-format source: dicts with kind ("markdown"/"code"), tag, note and lines."""
    cells: list[dict] = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            cells.append({"kind": "markdown" if m["tag"] == "markdown" else "code", "tag": m["tag"] or "",
                          "note": m["rest"].strip(), "lines": []})
        elif cells:
            cells[-1]["lines"].append(line)
        elif line.strip() and not line.startswith("#"):
            raise ValueError(f"text before the first '# %%' cell: {line!r}")
    for c in cells:
        while c["lines"] and not c["lines"][-1].strip():
            c["lines"].pop()
        while c["lines"] and not c["lines"][0].strip():
            c["lines"].pop(0)
    return cells


def markdown_text(lines: list[str]) -> str:
    out = []
    for line in lines:
        if line.startswith("# "):
            out.append(line[2:])
        elif line.strip() == "#":
            out.append("")
        else:
            raise ValueError(f"a markdown cell holds only comment lines, got {line!r}")
    return "\n".join(out)


def gpu_code(tag: str, note: str, body: str) -> str:
    """A GPU cell: one line where there is no GPU (or it lacks what the cell needs), the cell itself otherwise."""
    words = tag.split()
    if not note:
        raise ValueError(f"a [{tag}] cell needs a note saying what it does")
    text = f'if not GPU:\n    print("needs a GPU: {note}")\n'
    for need in words[1:]:
        if need not in NEEDS:
            raise ValueError(f"unknown need {need!r} in [{tag}]; known: {', '.join(NEEDS)}")
        text += NEEDS[need]
    indented = "\n".join(("    " + line) if line.strip() else "" for line in body.splitlines())
    return text + "else:\n" + indented


def cell_json(c: dict) -> dict:
    if c["kind"] == "markdown":
        return {"cell_type": "markdown", "metadata": {}, "source": _lines(markdown_text(c["lines"]))}
    body = "\n".join(c["lines"])
    meta: dict = {}
    if c["tag"].split()[:1] == ["gpu"]:
        body = gpu_code(c["tag"], c["note"], body)
        meta = {"tags": ["gpu"]}
    elif c["tag"] == "record":
        if not c["note"]:
            raise ValueError("a [record] cell needs a note saying what it shows")
        body = f"# {c['note']} (the committed H200 record; runs without a GPU)\n" + body
        meta = {"tags": ["record"]}
    elif c["tag"]:
        raise ValueError(f"unknown cell tag [{c['tag']}]")
    return {"cell_type": "code", "execution_count": None, "metadata": meta, "outputs": [], "source": _lines(body)}


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def read_repo() -> str:
    """The repository's OWNER/REPO from notebooks/colab_repo.txt (the placeholder where it is not set)."""
    try:
        value = REPO_FILE.read_text().strip()
    except OSError:
        return PLACEHOLDER
    return value or PLACEHOLDER


def colab_url(repo: str, source: Path) -> str:
    return f"https://colab.research.google.com/github/{repo}/blob/main/notebooks/{target(source).name}"


def badge_cell(repo: str, source: Path) -> dict:
    """The markdown cell at the top of every notebook: the Colab badge (placeholder repo: how to set it)."""
    text = f"[![Open In Colab]({BADGE})]({colab_url(repo, source)})"
    if repo == PLACEHOLDER:
        text += "  \n*(the link waits for `python3 notebooks/build.py --colab OWNER/REPO`)*"
    return {"cell_type": "markdown", "metadata": {"tags": ["colab"]}, "source": _lines(text)}


def title_of(source: Path) -> str:
    """The notebook's title without its number: "# # 10 · Graph memory nodes" -> "Graph memory nodes"."""
    cells = parse(source.read_text())
    first = markdown_text(cells[0]["lines"]).splitlines()[0]
    return re.sub(r"^#\s*\d+\s*·\s*", "", first).strip()


def notebook(source: Path, repo: str | None = None) -> dict:
    repo = read_repo() if repo is None else repo
    cells = parse(source.read_text())
    if not cells or cells[0]["kind"] != "markdown":
        raise ValueError(f"{source.name}: the first cell must be the title (markdown)")
    setup = parse(SETUP.read_text().replace("@COLAB_REPO@", repr(None if repo == PLACEHOLDER else repo)))
    cells = cells[:1] + setup + cells[1:]
    return {
        "cells": [badge_cell(repo, source)] + [cell_json(c) for c in cells],
        "metadata": {
            "accelerator": "GPU",
            "colab": {"provenance": []},
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def sources() -> list[Path]:
    return sorted(p for p in SRC.glob("[0-9][0-9]_*.py"))


def target(source: Path) -> Path:
    return HERE / (source.stem + ".ipynb")


def course_table(repo: str) -> str:
    """README's course table: number, title linked to the notebook (relative), the Colab badge."""
    rows = ["| | notebook | Colab |", "|---|---|---|"]
    for src in sources():
        rows.append(f"| {src.stem[:2]} | [{title_of(src)}](notebooks/{target(src).name}) | "
                    f"[![Open In Colab]({BADGE})]({colab_url(repo, src)}) |")
    return "\n".join([TABLE_BEGIN, *rows, TABLE_END])


def readme_with_table(text: str, repo: str) -> str:
    """README.md's text with the course table (between its two markers) rewritten; ValueError without them."""
    i, j = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if i < 0 or j < i:
        raise ValueError(f"README.md has no course table markers ({TABLE_BEGIN!r} ... {TABLE_END!r})")
    return text[:i] + course_table(repo) + text[j + len(TABLE_END):]


def _cells_only(nb: dict) -> list:
    """What --check compares: cell types, sources and tags (outputs and execution counts may differ)."""
    return [(c["cell_type"], "".join(c["source"]), c.get("metadata", {}).get("tags", [])) for c in nb["cells"]]


def with_ids(nb: dict, stem: str) -> dict:
    for i, c in enumerate(nb["cells"]):
        c["id"] = f"{stem[:2]}-{i:02d}"  # stable ids: rebuilding changes nothing
    return nb


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="build the course notebooks from notebooks/src")
    p.add_argument("--check", action="store_true", help="only check that every notebook matches its source")
    p.add_argument("--colab", metavar="OWNER/REPO",
                   help="the repository on GitHub: written to notebooks/colab_repo.txt, then the Colab badges of "
                        "every notebook and README's course table are rewritten with it")
    args = p.parse_args(argv)
    if args.colab is not None:
        if args.check:
            p.error("--colab writes; --check only reads: give one of them")
        if not REPO_RE.match(args.colab) or args.colab == PLACEHOLDER:
            p.error(f"--colab wants the repository as OWNER/REPO (as in github.com/OWNER/REPO), got {args.colab!r}")
        REPO_FILE.write_text(args.colab + "\n")
        print(f"wrote {REPO_FILE.relative_to(HERE.parent)}: {args.colab}")
    repo = read_repo()
    stale = []
    readme = README.read_text()
    want = readme_with_table(readme, repo)
    if want != readme:
        if args.check:
            stale.append("README.md: the course table differs from the notebooks")
        else:
            README.write_text(want)
            print("wrote README.md (course table)")
    for src in sources():
        nb = with_ids(notebook(src, repo), src.stem)
        out = target(src)
        if args.check:
            try:
                have = json.loads(out.read_text())
            except (OSError, ValueError):
                stale.append(f"{out.name}: missing or not JSON")
                continue
            if _cells_only(have) != _cells_only(nb):
                stale.append(f"{out.name}: differs from src/{src.name}")
            continue
        if out.exists():  # keep the outputs of cells whose source did not change (the committed H200 run)
            try:
                old_cells = json.loads(out.read_text())["cells"]
            except (OSError, ValueError, KeyError):
                old_cells = []
            old = {c.get("id"): c for c in old_cells}
            by_source = {"".join(c.get("source", [])): c for c in old_cells if c.get("cell_type") == "code"}
            for c in nb["cells"]:
                prev = old.get(c["id"])
                if not (prev and prev.get("source") == c["source"]):  # cells moved: the same source elsewhere
                    prev = by_source.get("".join(c["source"]))
                if c["cell_type"] == "code" and prev and prev.get("source") == c["source"]:
                    c["outputs"] = prev.get("outputs", [])
                    c["execution_count"] = prev.get("execution_count")
        out.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {out.relative_to(HERE.parent)}")
    names = {target(s).name for s in sources()}
    extra = sorted(p.name for p in HERE.glob("[0-9][0-9]_*.ipynb") if p.name not in names)
    if extra:
        stale += [f"{n}: has no source in src/" for n in extra]
    for line in stale:
        print(line, file=sys.stderr)
    if args.check:
        print("notebooks up to date" if not stale else f"{len(stale)} notebook(s) out of date: "
              "python3 notebooks/build.py", file=sys.stderr if stale else sys.stdout)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
