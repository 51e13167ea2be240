"""Pack the committed H200 records the course's [record] cells read into the package (cugraphlab/course_records/),
so that a notebook opened anywhere (Colab with only the wheel uploaded, no checkout, no network) shows them.

Each record is copied from the newest benchmarks/results/2026-12-01_H200_round{6,5,4,3}/ folder that has it,
trimmed to what the cells show: a part the course never reads (another entry of a file that holds several) is
dropped, then every block of data (raw samples, the other size's tables, ...) is dropped when, without it, the
record still loads (`record_from_dict`) and renders to exactly the same text (`cugraphlab show`'s), and a record the
course plots draws exactly the same PNG. index.json names where each came from (what the cell prints first).

    python3 notebooks/pack_records.py            # write cugraphlab/course_records/
    python3 notebooks/pack_records.py --check    # exit 1 when a packed record differs from what it would write

tests/package/test_course_records.py checks that the packed records are up to date, small and complete.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = ROOT / "cugraphlab" / "course_records"
FOLDERS = [f"benchmarks/results/2026-12-01_H200_round{n}" for n in (6, 5, 4, 3)]  # newest first
LIMIT = 2 * 1024 * 1024  # bytes, all packed records together
#: records the course draws with a report.plots function: the figure must not change either
PLOTS = {"compare_default_1": ("cugraphlab.report.plots.compare", "plot_compare_stacks"),
         "scaling_default": ("cugraphlab.report.scaling", "plot_scaling")}
USE = re.compile(r'(?:show_record|h200_record)\(\s*"([a-z_0-9]+)"(?P<rest>[^\n]*(?:\n[ \t]+[^\n]*)*)')
PART = re.compile(r"part=\(([^)]*)\)")


def used() -> dict[str, tuple]:
    """Record name -> the part of it the course reads (() for the whole file), from every notebook source."""
    found: dict[str, tuple] = {}
    for src in sorted((HERE / "src").glob("**/[0-9][0-9]_*.py")):
        for m in USE.finditer(src.read_text()):
            part = PART.search(m["rest"].split("\n\n")[0])
            key = tuple(json.loads("[" + part[1].replace("'", '"').rstrip(", ") + "]")) if part else ()
            if found.setdefault(m[1], key) != key:
                raise SystemExit(f"record {m[1]} is read with two parts: {found[m[1]]} and {key}")
    return found


def source_of(name: str) -> str:
    for folder in FOLDERS:
        if (ROOT / folder / f"2026-12-01_H200_{name}.json").is_file():
            return f"{folder}/2026-12-01_H200_{name}.json"
    raise SystemExit(f"no committed record {name} in {', '.join(FOLDERS)}")


def _dig(data, part):
    for key in part:
        data = data[key]
    return data


def _view(data, part, name, text_only=False):
    """What the course sees of the record: its kind's class (or a dict, show_record's fallback), its rendered text
    and, where the course plots it, the PNG."""
    from cugraphlab.bench import record_from_dict
    from cugraphlab.report import render_record

    rec = _dig(data, part)
    try:
        kind = type(record_from_dict(rec, name)).__name__
    except Exception as e:
        kind = f"dict ({type(e).__name__})"
    text = render_record(rec)
    png = b""
    if name in PLOTS and not text_only:
        import importlib
        import tempfile

        import matplotlib
        matplotlib.use("Agg")
        module, func = PLOTS[name]
        plot = getattr(importlib.import_module(module), func)
        with tempfile.TemporaryDirectory() as tmp:
            paths = plot(record_from_dict(rec, name), f"{tmp}/figure")
            png = Path(next(str(p) for p in paths if str(p).endswith(".png"))).read_bytes()
    return kind, text, png


def _blocks(obj, path=()):
    """Every (path, size) of a dict entry or list item below the top, biggest first."""
    out = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        size = len(json.dumps(v))
        if size >= 1000 and len(path) < 4:
            out.append((path + (k,), size))
            out += _blocks(v, path + (k,))
    return sorted(out, key=lambda e: -e[1])


def trim(name: str, part: tuple) -> dict:
    data = json.loads((ROOT / source_of(name)).read_text())
    # another entry of a list the course does not read: dropped (list positions before it are kept)
    node = data
    for key in part:
        if isinstance(node, list) and isinstance(key, int):
            del node[key + 1:]
        node = node[key]
    want = _view(data, part, name)
    for path, size in _blocks(data):
        if (len(path) <= len(part) and tuple(path) == part[:len(path)]):
            continue  # on the way to the part
        try:
            parent = _dig(data, path[:-1])
        except (KeyError, IndexError, TypeError):
            continue  # inside a block already dropped
        if isinstance(parent, list) or path[-1] == "env":
            continue  # list items keep their positions; where it ran is printed with the record
        order = list(parent)
        held = parent.pop(path[-1])
        try:
            same = _view(data, part, name, text_only=True)[:2] == want[:2] and \
                (name not in PLOTS or _view(data, part, name) == want)
        except Exception:
            same = False
        if not same:  # put it back where it was: a record shown plainly lists its fields in their order
            rest = {k: parent.pop(k) for k in order if k in parent}
            parent.update({k: held if k == path[-1] else rest[k] for k in order})
    return data


def packed() -> dict[str, bytes]:
    """File name -> bytes of everything course_records/ should hold."""
    files, index = {}, {}
    for name, part in sorted(used().items()):
        data = trim(name, part)
        files[f"{name}.json"] = json.dumps(data, separators=(",", ":")).encode() + b"\n"
        index[name] = source_of(name)
    files["index.json"] = (json.dumps(index, indent=1, sort_keys=True) + "\n").encode()
    return files


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="pack the records the course reads into cugraphlab/course_records/")
    p.add_argument("--check", action="store_true", help="exit 1 when a packed record is missing or differs")
    args = p.parse_args(argv)
    files = packed()
    total = sum(len(b) for b in files.values())
    if total > LIMIT:
        raise SystemExit(f"the packed records hold {total:,} bytes, over {LIMIT:,}")
    have = {p.name for p in OUT.glob("*.json")} if OUT.is_dir() else set()
    stale = sorted(n for n, b in files.items() if not (OUT / n).is_file() or (OUT / n).read_bytes() != b)
    stale += sorted(have - set(files))
    if args.check:
        for n in stale:
            print(f"cugraphlab/course_records/{n}: out of date", file=sys.stderr)
        print("course records up to date" if not stale else "python3 notebooks/pack_records.py")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for n in sorted(have - set(files)):
        (OUT / n).unlink()
    for n, b in files.items():
        (OUT / n).write_bytes(b)
    print(f"wrote {len(files)} files, {total:,} bytes, to cugraphlab/course_records/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
