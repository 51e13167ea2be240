"""Rooms of one idea: no module of the package over 600 lines, no function over 80, no class over 300.

The figures (``python tests/package/test_sizes.py`` prints them all, largest first) are lines of source from the
``def`` or ``class`` line to the last line of the body, docstring included. ``KNOWN`` lists what was over a limit
when the limits were set, each with its size then: an entry may only shrink or leave (a test fails when one grew, and
when one is back under its limit, so that its entry is deleted); nothing new may join it.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cugraphlab"
LIMITS = {"module": 600, "function": 80, "class": 300}

#: "path" (module) or "path::Qualified.name" -> (kind, lines when the limits were set). Only shrinks.
KNOWN: dict[str, tuple[str, int]] = {
}


def sizes(package: Path = PACKAGE) -> dict[str, tuple[str, int]]:
    """Every module, function (methods and nested ones too) and class of ``package``: name -> (kind, lines)."""
    out: dict[str, tuple[str, int]] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        text = path.read_text()
        out[rel] = ("module", len(text.splitlines()))

        def walk(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    kind = "class" if isinstance(child, ast.ClassDef) else "function"
                    name = f"{prefix}{child.name}"
                    out.setdefault(f"{rel}::{name}", (kind, child.end_lineno - child.lineno + 1))
                    walk(child, f"{name}.")
                else:
                    walk(child, prefix)

        walk(ast.parse(text), "")
    return out


def over(found: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    return {name: (kind, n) for name, (kind, n) in found.items() if n > LIMITS[kind]}


def report(found: dict[str, tuple[str, int]] | None = None) -> str:
    found = sizes() if found is None else found
    lines = []
    for kind, limit in LIMITS.items():
        mine = sorted(((n, name) for name, (k, n) in found.items() if k == kind), reverse=True)
        big = [f"    {n:5d}  {name}" for n, name in mine if n > limit]
        lines.append(f"{kind}{'es' if kind == 'class' else 's'}: {len(mine)}, largest {mine[0][0]} lines, {len(big)} over {limit}")
        lines += big
    return "\n".join(lines)


def test_the_figures_are_reported(record_property):
    """The figures in the run's output (a section after the tests, tests/helpers/figures_summary.py): how many
    modules, functions and classes, the largest of each, and every one over its limit."""
    text = report()
    record_property("figures", ("sizes: modules over 600 lines, functions over 80, classes over 300", text))
    lines = text.splitlines()
    heads = [line for line in lines if not line.startswith(" ")]
    assert [h.split(":")[0] for h in heads] == ["modules", "functions", "classes"]
    for head, (kind, limit) in zip(heads, LIMITS.items()):
        assert head.endswith(f"over {limit}")
        over_limit = int(head.rsplit(" over ", 1)[0].rsplit(" ", 1)[1])
        assert over_limit == sum(1 for k, n in over(sizes()).values() if k == kind)


def test_nothing_new_is_over_a_limit():
    new = {name: v for name, v in over(sizes()).items() if name not in KNOWN}
    assert new == {}, f"over the limits {LIMITS} (split it: one idea per room):\n{report()}"


def test_the_known_exceptions_only_shrink():
    found = sizes()
    grew = {name: (was, found[name][1]) for name, (_, was) in KNOWN.items() if name in found and found[name][1] > was}
    assert grew == {}, f"grew (was, now): {grew}"


def test_a_known_exception_back_under_its_limit_leaves_the_list():
    found = over(sizes())
    gone = sorted(name for name in KNOWN if name not in found)
    assert gone == [], f"no longer over its limit (or gone): delete from KNOWN in {Path(__file__).name}: {gone}"


def test_the_sizes_are_counted_from_the_source(tmp_path):
    (tmp_path / "m.py").write_text("class A:\n    def f(self):\n        def g():\n            pass\n        return 1\n\n"
                                   + "x = 1\n" * 600)
    found = sizes(tmp_path)
    assert found["m.py"] == ("module", 606)
    assert found["m.py::A"] == ("class", 5) and found["m.py::A.f"] == ("function", 4)
    assert found["m.py::A.f.g"] == ("function", 2)
    assert over(found) == {"m.py": ("module", 606)}
    assert "modules: 1, largest 606 lines, 1 over 600" in report(found)


if __name__ == "__main__":
    print(report())
