"""Docstrings and comments tell the truth about where things are: every dotted path into the package that the
package's docstrings and comments name (and, spelled in full, those of benchmarks/, tests/ and examples/) resolves to a module, or to a name in one (``cugraphlab.bench.timing``,
``bench.native.loops.native_floor``, ``core.launch.Launch.native``).

A path is ``cugraphlab.X.Y...`` or one starting with a floor or the testing package (``core.``, ``graphs.``,
``experiment.``, ``bench.``, ``report.``, ``cli.``, ``testing.``), read as ``cugraphlab.<path>``; inside bench/ a path
may also be relative to bench (``graphs.update`` for ``bench.graphs.update``). An attribute that an object sets on
itself (``self.name = ...`` or a class annotation) counts as found. Record kinds (``cugraphlab.run``) are strings of
code, not of docstrings or comments, and are not read here. No GPU needed.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import tokenize
from pathlib import Path

import pytest

import cugraphlab

PACKAGE = Path(cugraphlab.__file__).parent
ROOT = Path(__file__).resolve().parents[2]
FLOORS = ("core", "graphs", "experiment", "bench", "report", "cli", "testing")
PATH = re.compile(r"(?<![\w./-])(?:cugraphlab\.)?(?:%s)(?:\.[A-Za-z_]\w*)+" % "|".join(FLOORS))


def _prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of every docstring and comment of a module's source."""
    out = []
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.append((body[0].lineno, body[0].value.value))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    return out


def _sets_itself(obj, name: str) -> bool:
    """Whether class ``obj`` (or a base) gives its instances ``name``: ``self.name =`` or an annotation."""
    for klass in getattr(obj, "__mro__", ()):
        if name in getattr(klass, "__annotations__", {}) or name in getattr(klass, "__slots__", ()):
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{re.escape(name)}\b\s*(?::[^=]+)?=", source):
            return True
    return False


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` (``cugraphlab.a.b.C.d``) is a module or a name reachable from one."""
    parts = dotted.split(".")
    for i in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                return inspect.isclass(obj) and _sets_itself(obj, part)
        return True
    return False


def _candidates(path: str, module: str) -> list[str]:
    full = path if path.startswith("cugraphlab.") else f"cugraphlab.{path}"
    out = [full]
    if module.startswith("cugraphlab.bench") and not path.startswith(("cugraphlab.", "bench.")):
        out.append(f"cugraphlab.bench.{path}")
    return out


def stale_paths(package: Path = PACKAGE) -> list[str]:
    bad = []
    for file in sorted(package.rglob("*.py")):
        rel = file.relative_to(package.parent)
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        for line, text in _prose(file.read_text()):
            for m in PATH.finditer(text):
                path = m.group(0)
                if not any(resolves(c) for c in _candidates(path, module)):
                    bad.append(f"{rel}:{line + text[:m.start()].count(chr(10))}: {path}")
    return bad


def stale_full_paths(folder: Path) -> list[str]:
    """The same outside the package (benchmarks/, tests/, examples/), for paths spelled ``cugraphlab.X...`` in full:
    there a short ``bench.X`` may name something else (``studies.floor``)."""
    bad = []
    for file in sorted(folder.rglob("*.py")):
        for line, text in _prose(file.read_text()):
            for m in PATH.finditer(text):
                if m.group(0).startswith("cugraphlab.") and not resolves(m.group(0)):
                    bad.append(f"{file.relative_to(ROOT)}:{line + text[:m.start()].count(chr(10))}: {m.group(0)}")
    return bad


def test_every_dotted_path_in_docstrings_and_comments_resolves():
    bad = stale_paths() + [b for folder in ("benchmarks", "tests", "examples") for b in stale_full_paths(ROOT / folder)]
    assert bad == [], f"{len(bad)} docstring or comment paths name nothing (moved? say where it is now):\n" + \
        "\n".join(bad)


@pytest.mark.parametrize("dotted, found", [
    ("cugraphlab.bench.timing.time_mode", True), ("cugraphlab.core.launch.Launch.native", True),
    ("cugraphlab.bench.native.loops", True), ("cugraphlab.bench.hold", False), ("cugraphlab.bench.nodes", False),
    ("cugraphlab.bench.paired_stats", False), ("cugraphlab.core.launch.Launch.no_such_method", False),
])
def test_the_resolver_tells_a_path_from_a_stale_one(dotted, found):
    assert resolves(dotted) is found


def test_paths_are_found_in_docstrings_and_comments_only(tmp_path):
    pkg = tmp_path / "cugraphlab"
    pkg.mkdir()
    (pkg / "m.py").write_text('"""See bench.hold and ``cugraphlab.bench.timing``."""\n'
                              'KIND = "cugraphlab.run"\n'
                              'x = 1  # from core.no_such_module\n')
    assert stale_paths(pkg) == ["cugraphlab/m.py:1: bench.hold", "cugraphlab/m.py:3: core.no_such_module"]
