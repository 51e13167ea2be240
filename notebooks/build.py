"""Build the course notebooks (notebooks/NN_name.ipynb) and their solutions (notebooks/solutions/NN_name.ipynb) from
their readable sources (notebooks/src/NN_name.py, notebooks/src/solutions/NN_name.py).

A source is Python in "percent" cells, one header line per cell:

    # %% [markdown]              a markdown cell: the comment lines below it, "# " stripped
    # %% [markdown exercise N]   the text of exercise N (copied into the solutions notebook too)
    # %%                         a code cell, run as written
    # %% [gpu] what it does      a code cell that needs a GPU: wrapped as
                                     if not GPU:
                                         print("needs a GPU: what it does")
                                     else:
                                         <the cell, indented>
    # %% [gpu NEED ...] what     also needs NEED (one more line says so where it is missing; NEEDS below):
                                 sm90 (PDL), cuda12.3 (WHILE, IF), cuda12.8 (IF/ELSE, SWITCH), devlaunch (device
                                 graph launch: its extra installed and require_device_launch passing), cupti
    # %% [record] what it shows  a CPU cell drawing from a committed H200 record (benchmarks/results/...): runs
                                 everywhere, so a reader without a GPU sees the H200's tables and figures
    # %% [exercise N]            the stub of exercise N: the student's code goes here (it must run as it is)
    # %% [check N] what          the check of exercise N (bit-exact and shape checks); [check N gpu ...] guarded
    # %% [solution N] ...        (src/solutions/ only) the solution of exercise N; [solution N gpu ...] guarded

Every notebook gets the two cells of src/_setup.py (install cugraphlab, open the GPU or say there is none) right
after its first (title) cell, and, once the repository is set (below), an "Open in Colab" badge cell before it. A solutions notebook is the course
notebook with each [exercise N] stub replaced by the [solution N] cells of src/solutions/NN_name.py, its checks kept,
and a `SOLUTIONS = True` cell after the setup (an unanswered check then fails instead of saying so). Cells carry tags
("gpu", "record", "exercise", "exercise-text", "check", "solution") so that tests can find them. Outputs are not
written here: a rebuilt notebook keeps the outputs of every code cell whose source did not change (the committed
H200 run), matched by cell id, else by source; new cells come out unexecuted (`--check` ignores outputs).

The Colab links (the badge cell of each notebook, the Colab column of README's course table) and where the setup cell
installs cugraphlab from are built from one file,
notebooks/colab_repo.txt: its first line is the repository's GitHub OWNER/REPO (the placeholder "OWNER/REPO" until
someone sets it; never guessed); an optional line "source: PIP-URL" names another install source (a wheel URL, a
git URL with a branch) instead of git+https://github.com/OWNER/REPO:

    python3 notebooks/build.py                     # write every notebook, solution and README's course table
    python3 notebooks/build.py --check             # exit 1 when a notebook or the table differs from its source
    python3 notebooks/build.py --colab OWNER/REPO [--source PIP-URL]   # set them, then rewrite everything

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
ROLES = ("exercise", "check", "solution")
_COMMITTED = "the committed notebook shows the H200's output"
NEEDS = {
    # CUDA Programming Guide, "Programmatic Dependent Launch and Synchronization": "Available starting with devices
    # of compute capability 9.0".
    "sm90": ('elif dev.compute_capability < (9, 0):\n'
             '    print(f"needs sm_90 or newer (PDL is available starting with compute capability 9.0; this GPU '
             f'is {{dev.arch}}): {_COMMITTED}")\n'),
    "cuda12.3": ('elif DRIVER < (12, 3):\n'
                 '    print(f"needs a driver for CUDA 12.3 or newer (this one: CUDA {DRIVER[0]}.{DRIVER[1]}): '
                 f'{_COMMITTED}")\n'),
    "cuda12.8": ('elif DRIVER < (12, 8):\n'
                 '    print(f"needs a driver for CUDA 12.8 or newer (this one: CUDA {DRIVER[0]}.{DRIVER[1]}): '
                 f'{_COMMITTED}")\n'),
    # CUDA Programming Guide, "Device Graph Launch": "only available on systems which support unified addressing";
    # no compute capability of its own. devlaunch_missing() (src/_setup.py) installs the extra and asks the package.
    "devlaunch": ('elif devlaunch_missing():\n'
                  f'    print(f"needs device graph launch: {{devlaunch_missing()}}: {_COMMITTED}")\n'),
    "cupti": ('elif cupti_missing():\n'
              f'    print(f"needs CUPTI: {{cupti_missing()}}: {_COMMITTED}")\n'),
}


def parse(text: str) -> list[dict]:
    """The cells of a percent-format source: dicts with kind ("markdown"/"code"), tag, note and lines."""
    cells: list[dict] = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            tag = " ".join((m["tag"] or "").split())
            cells.append({"kind": "markdown" if tag.split()[:1] == ["markdown"] else "code", "tag": tag,
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
        c.update(role_of(c["tag"]))
    return cells


def role_of(tag: str) -> dict:
    """What a cell's tag says: role (exercise, check, solution, exercise-text or ""), its exercise number, whether it
    is guarded for a GPU and what else it needs."""
    words = tag.split()
    if words[:2] == ["markdown", "exercise"]:
        if len(words) != 3 or not words[2].isdigit():
            raise ValueError(f"[{tag}]: write [markdown exercise N]")
        return {"role": "exercise-text", "n": int(words[2]), "gpu": False, "needs": []}
    if words[:1] == ["markdown"]:
        if len(words) > 1:
            raise ValueError(f"unknown markdown tag [{tag}]")
        return {"role": "", "n": None, "gpu": False, "needs": []}
    role, n = "", None
    if words[:1] and words[0] in ROLES:
        if len(words) < 2 or not words[1].isdigit():
            raise ValueError(f"[{tag}]: write [{words[0]} N] with the exercise number")
        role, n, words = words[0], int(words[1]), words[2:]
    gpu = words[:1] == ["gpu"]
    if words and not gpu and words != ["record"]:
        raise ValueError(f"unknown cell tag [{tag}]")
    if role and words == ["record"]:
        raise ValueError(f"[{tag}]: an exercise cell cannot be a record cell")
    if role == "exercise" and gpu:
        raise ValueError(f"[{tag}]: an exercise stub must run anywhere; guard its check instead")
    needs = words[1:] if gpu else []
    for need in needs:
        if need not in NEEDS:
            raise ValueError(f"unknown need {need!r} in [{tag}]; known: {', '.join(NEEDS)}")
    return {"role": role, "n": n, "gpu": gpu, "needs": needs, "record": words == ["record"]}


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


def gpu_code(needs: list[str], note: str, body: str) -> str:
    """A GPU cell: one line where there is no GPU (or it lacks what the cell needs), the cell itself otherwise."""
    if not note:
        raise ValueError("a GPU cell needs a note saying what it does")
    if '"' in note or "\\" in note or "{" in note:
        raise ValueError(f"a GPU cell's note is printed as it is: no double quote, backslash or brace, got {note!r}")
    text = f'if not GPU:\n    print("needs a GPU: {note}")\n'
    for need in needs:
        text += NEEDS[need]
    indented = "\n".join(("    " + line) if line.strip() else "" for line in body.splitlines())
    return text + "else:\n" + indented


def cell_json(c: dict) -> dict:
    tags = [c["role"]] if c.get("role") else []
    if c["kind"] == "markdown":
        meta = {"tags": ["exercise-text"]} if c["role"] == "exercise-text" else {}
        return {"cell_type": "markdown", "metadata": meta, "source": _lines(markdown_text(c["lines"]))}
    body = "\n".join(c["lines"])
    if c["gpu"]:
        body = gpu_code(c["needs"], c["note"], body)
        tags.append("gpu")
    elif c.get("record"):
        if not c["note"]:
            raise ValueError("a [record] cell needs a note saying what it shows")
        body = f"# {c['note']} (the committed H200 record; runs without a GPU)\n" + body
        tags.append("record")
    elif c["note"] and c["role"] in ("check", "solution"):
        body = f"# {c['note']}\n" + body
    meta = {"tags": tags} if tags else {}
    return {"cell_type": "code", "execution_count": None, "metadata": meta, "outputs": [], "source": _lines(body)}


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


# --- the repository and the install source -----------------------------------------------------------------------
def read_config() -> tuple[str, str | None]:
    """(OWNER/REPO, pip source or None) from notebooks/colab_repo.txt (the placeholder and None where not set)."""
    try:
        lines = [line.strip() for line in REPO_FILE.read_text().splitlines() if line.strip()]
    except OSError:
        return PLACEHOLDER, None
    repo = lines[0] if lines and not lines[0].startswith("source:") else PLACEHOLDER
    source = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("source:")), None)
    return repo, source or None


def read_repo() -> str:
    """The repository's OWNER/REPO from notebooks/colab_repo.txt (the placeholder where it is not set)."""
    return read_config()[0]


def install_source(repo: str, source: str | None) -> str | None:
    """Where the setup cell installs cugraphlab from: the configured source, else the repository on GitHub."""
    if source:
        return source
    return None if repo == PLACEHOLDER else f"git+https://github.com/{repo}"


def colab_url(repo: str, source: Path) -> str:
    return f"https://colab.research.google.com/github/{repo}/blob/main/{target(source).relative_to(HERE.parent)}"


def badge_cell(repo: str, source: Path) -> dict | None:
    """The markdown cell at the top of every notebook: its Colab badge; None (no cell, no link) while the repository
    is the placeholder: a badge would point nowhere until `python3 notebooks/build.py --colab OWNER/REPO` sets it."""
    if repo == PLACEHOLDER:
        return None
    text = f"[![Open In Colab]({BADGE})]({colab_url(repo, source)})"
    return {"cell_type": "markdown", "metadata": {"tags": ["colab"]}, "source": _lines(text)}


def title_of(source: Path) -> str:
    """The notebook's title without its number: "# # 14 · Graph memory nodes" -> "Graph memory nodes"."""
    cells = parse(source.read_text())
    first = markdown_text(cells[0]["lines"]).splitlines()[0]
    return re.sub(r"^#\s*\d+\s*·\s*", "", first).strip()


def setup_cells(repo: str, source: str | None) -> list[dict]:
    text = SETUP.read_text()
    text = text.replace("@COURSE_SOURCE@", repr(install_source(repo, source)))
    return parse(text)


def _assemble(source: Path, cells: list[dict], repo: str, pip_source: str | None) -> dict:
    if not cells or cells[0]["kind"] != "markdown":
        raise ValueError(f"{source.name}: the first cell must be the title (markdown)")
    cells = cells[:1] + setup_cells(repo, pip_source) + cells[1:]
    return {
        "cells": [b for b in [badge_cell(repo, source)] if b] + [cell_json(c) for c in cells],
        "metadata": {
            "accelerator": "GPU",
            "colab": {"provenance": []},
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def exercises(cells: list[dict]) -> dict[int, dict]:
    """Exercise number -> {"text": markdown cell, "stub": [cells], "check": [cells]} of a course notebook."""
    found: dict[int, dict] = {}
    for c in cells:
        if c["role"] in ("exercise-text", "exercise", "check"):
            key = {"exercise-text": "text", "exercise": "stub", "check": "check"}[c["role"]]
            entry = found.setdefault(c["n"], {"text": None, "stub": [], "check": []})
            if key == "text":
                if entry["text"] is not None:
                    raise ValueError(f"exercise {c['n']} has two [markdown exercise {c['n']}] cells")
                entry["text"] = c
            else:
                entry[key].append(c)
        elif c["role"] == "solution":
            raise ValueError("a [solution N] cell belongs in notebooks/src/solutions/")
    for n, e in found.items():
        if e["text"] is None or not e["stub"] or not e["check"]:
            raise ValueError(f"exercise {n} needs its [markdown exercise {n}], [exercise {n}] and [check {n}] cells")
    return found


def notebook(source: Path, repo: str | None = None, pip_source: str | None = None) -> dict:
    if repo is None:
        repo, pip_source = read_config()
    cells = parse(source.read_text())
    exercises(cells)  # validates them
    return _assemble(source, cells, repo, pip_source)


def solutions_notebook(source: Path, repo: str | None = None, pip_source: str | None = None) -> dict:
    """The solutions notebook of ``source`` (notebooks/src/solutions/NN_name.py, its [solution N] cells): the course
    notebook src/NN_name.py with each [exercise N] stub replaced by the solution's cells, its checks kept, and a
    `SOLUTIONS = True` cell after the setup (an unanswered check fails there). A first markdown cell of the
    solutions source, if any, follows the title."""
    if repo is None:
        repo, pip_source = read_config()
    course = SRC / source.name
    if not course.is_file():
        raise ValueError(f"solutions/{source.name}: no course notebook src/{source.name}")
    course_cells = parse(course.read_text())
    wanted = exercises(course_cells)
    given: dict[int, list[dict]] = {}
    notes = []
    for i, c in enumerate(parse(source.read_text())):
        if c["role"] == "solution":
            if c["n"] not in wanted:
                raise ValueError(f"solutions/{source.name}: [solution {c['n']}] but src/{source.name} has no "
                                 f"exercise {c['n']}")
            given.setdefault(c["n"], []).append(c)
        elif c["kind"] == "markdown" and i == 0:
            notes.append(c)
        else:
            raise ValueError(f"solutions/{source.name}: only [solution N] cells (and a first markdown cell) belong "
                             f"here, got [{c['tag']}]")
    missing = sorted(set(wanted) - set(given))
    if missing:
        raise ValueError(f"solutions/{source.name}: no solution for exercise(s) {', '.join(map(str, missing))}")
    title = dict(course_cells[0])
    text = markdown_text(title["lines"]).splitlines()
    title["lines"] = ["# " + text[0] + " (solutions)" if text else "# (solutions)"] + title["lines"][1:]
    out = [title, *notes, {"kind": "code", "tag": "", "note": "", "role": "", "n": None, "gpu": False, "needs": [],
                           "lines": ["SOLUTIONS = True  # every check below must pass: an unanswered exercise fails"]}]
    for c in course_cells[1:]:
        if c["role"] == "exercise":
            out.extend(given.pop(c["n"], []))  # the stub's place, once (a stub of several cells: the first)
        else:
            out.append(c)
    return _assemble(source, out, repo, pip_source)


def sources() -> list[Path]:
    return sorted(p for p in SRC.glob("[0-9][0-9]_*.py"))


def solution_sources() -> list[Path]:
    return sorted(p for p in (SRC / "solutions").glob("[0-9][0-9]_*.py"))


def target(source: Path) -> Path:
    if source.parent.name == "solutions":
        return HERE / "solutions" / (source.stem + ".ipynb")
    return HERE / (source.stem + ".ipynb")


def course_table(repo: str) -> str:
    """README's course table: number, title linked to the notebook (relative), its solutions, and the Colab badge
    once the repository is set (no Colab column while it is the placeholder: no link that points nowhere)."""
    solved = {p.name for p in solution_sources()}
    colab = repo != PLACEHOLDER
    rows = ["| | notebook | solutions |" + (" Colab |" if colab else ""), "|---|---|---|" + ("---|" if colab else "")]
    for src in sources():
        sol = (f"[solutions](notebooks/solutions/{target(src).name})" if src.name in solved else "")
        rows.append(f"| {src.stem[:2]} | [{title_of(src)}](notebooks/{target(src).name}) | {sol} |" +
                    (f" [![Open In Colab]({BADGE})]({colab_url(repo, src)}) |" if colab else ""))
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


def with_ids(nb: dict, stem: str, solutions: bool = False) -> dict:
    prefix = stem[:2] + ("s" if solutions else "")
    first = 0 if "colab" in nb["cells"][0].get("metadata", {}).get("tags", []) else 1  # the badge cell is 00
    for i, c in enumerate(nb["cells"], first):
        c["id"] = f"{prefix}-{i:02d}"  # stable ids: rebuilding changes nothing
    return nb


def keep_outputs(nb: dict, out: Path) -> None:
    """Copy into ``nb`` the outputs of the cells of the existing ``out`` whose source is unchanged."""
    if not out.exists():
        return
    try:
        old_cells = json.loads(out.read_text())["cells"]
    except (OSError, ValueError, KeyError):
        return
    old = {c.get("id"): c for c in old_cells}
    by_source = {"".join(c.get("source", [])): c for c in old_cells if c.get("cell_type") == "code"}
    for c in nb["cells"]:
        prev = old.get(c["id"])
        if not (prev and prev.get("source") == c["source"]):  # cells moved: the same source elsewhere
            prev = by_source.get("".join(c["source"]))
        if c["cell_type"] == "code" and prev and prev.get("source") == c["source"]:
            c["outputs"] = prev.get("outputs", [])
            c["execution_count"] = prev.get("execution_count")


def built() -> list[tuple[Path, dict]]:
    """(target path, notebook) for every course notebook and solutions notebook."""
    repo, pip_source = read_config()
    out = [(target(s), with_ids(notebook(s, repo, pip_source), s.stem)) for s in sources()]
    out += [(target(s), with_ids(solutions_notebook(s, repo, pip_source), s.stem, solutions=True))
            for s in solution_sources()]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="build the course notebooks and their solutions from notebooks/src")
    p.add_argument("--check", action="store_true", help="only check that every notebook matches its source")
    p.add_argument("--colab", metavar="OWNER/REPO",
                   help="the repository on GitHub: written to notebooks/colab_repo.txt, then the Colab badges of "
                        "every notebook, README's course table and the setup cell's install source are rewritten")
    p.add_argument("--source", metavar="PIP-URL",
                   help="with --colab: install cugraphlab from this pip URL (a wheel, git+https://...@branch) "
                        "instead of git+https://github.com/OWNER/REPO")
    args = p.parse_args(argv)
    if args.source is not None and args.colab is None:
        p.error("--source goes with --colab OWNER/REPO")
    if args.colab is not None:
        if args.check:
            p.error("--colab writes; --check only reads: give one of them")
        if not REPO_RE.match(args.colab) or args.colab == PLACEHOLDER:
            p.error(f"--colab wants the repository as OWNER/REPO (as in github.com/OWNER/REPO), got {args.colab!r}")
        if args.source is not None and (not args.source.strip() or any(ch.isspace() for ch in args.source.strip())):
            p.error(f"--source wants one pip URL without spaces, got {args.source!r}")
        REPO_FILE.write_text(args.colab + "\n" + (f"source: {args.source.strip()}\n" if args.source else ""))
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
    for out, nb in built():
        name = out.relative_to(HERE)
        if args.check:
            try:
                have = json.loads(out.read_text())
            except (OSError, ValueError):
                stale.append(f"{name}: missing or not JSON")
                continue
            if _cells_only(have) != _cells_only(nb):
                stale.append(f"{name}: differs from its source")
            continue
        keep_outputs(nb, out)
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {out.relative_to(HERE.parent)}")
    names = {target(s) for s in (*sources(), *solution_sources())}
    extra = sorted(p for p in (*HERE.glob("[0-9][0-9]_*.ipynb"), *(HERE / "solutions").glob("[0-9][0-9]_*.ipynb"))
                   if p not in names)
    stale += [f"{p.relative_to(HERE)}: has no source in src/" for p in extra]
    for line in stale:
        print(line, file=sys.stderr)
    if args.check:
        print("notebooks up to date" if not stale else f"{len(stale)} notebook(s) out of date: "
              "python3 notebooks/build.py", file=sys.stderr if stale else sys.stdout)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
