"""The house: floors only point down. Each floor, imported alone in a fresh interpreter, loads no floor above it."""
from __future__ import annotations

import functools
import json
import subprocess
import sys

import pytest

FLOORS = ["core", "graphs", "experiment", "bench", "report", "cli"]
# the probe of every module runs once per test run, in whichever worker asks first (helpers/once_per_run.py)
pytestmark = pytest.mark.xdist_group("floors")
_BASE: list = []  # the session's temporary folder (the fixture below), where the probe's result is shared


@pytest.fixture(autouse=True, scope="module")
def _session_folder(tmp_path_factory):
    _BASE[:] = [tmp_path_factory.getbasetemp()]


#: Imports each module named in argv[1] (a JSON list) from a clean slate: every ``cugraphlab`` module is dropped
#: from ``sys.modules`` first, so the modules listed after an import are those that import loaded, as in a fresh
#: interpreter (third-party modules stay loaded: they import no cugraphlab module). One interpreter for all of them
#: instead of one each: the check costs one start-up, not two hundred.
_PROBE = r"""
import importlib, json, sys
out = {}
for name in json.loads(sys.argv[1]):
    for m in [m for m in sys.modules if m == "cugraphlab" or m.startswith("cugraphlab.")]:
        del sys.modules[m]
    importlib.invalidate_caches()
    try:
        importlib.import_module(name)
    except BaseException as e:
        out[name] = {"error": f"{type(e).__name__}: {e}"}
        continue
    out[name] = sorted(m for m in sys.modules if m.startswith("cugraphlab."))
print(json.dumps(out))
"""


def _all_modules() -> list[str]:
    import pkgutil

    import cugraphlab

    return ["cugraphlab._version"] + [info.name for info in pkgutil.walk_packages(cugraphlab.__path__, "cugraphlab.")]


@functools.lru_cache(maxsize=1)
def _loaded_map() -> dict[str, list[str]]:
    """module -> the cugraphlab modules loaded after importing it alone, for every module of the package (probed
    once per test run: ``once_per_run``)."""
    from once_per_run import once

    return once(_BASE[0], "floors_probe", _probe)


def _probe() -> dict[str, list[str]]:
    modules = _all_modules()
    r = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(modules)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout)
    errors = {m: v["error"] for m, v in out.items() if isinstance(v, dict)}
    assert errors == {}, errors
    return out


def _loaded_after_import(module: str) -> set[str]:
    """The cugraphlab modules loaded by ``import cugraphlab.<module>`` alone."""
    return set(_loaded_map()[f"cugraphlab.{module}"])


def test_the_probe_sees_what_a_fresh_interpreter_sees():
    """The one-interpreter probe agrees with a fresh interpreter (on a base wing of bench, which loads part of
    core)."""
    for module in ("bench.records",):
        code = (f"import json, sys; import cugraphlab.{module}; "
                "print(json.dumps(sorted(m for m in sys.modules if m.startswith('cugraphlab.'))))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert set(json.loads(r.stdout)) == _loaded_after_import(module), module


@pytest.mark.parametrize("floor", FLOORS)
def test_a_floor_loads_no_floor_above_it(floor):
    loaded = _loaded_after_import(floor)
    above = FLOORS[FLOORS.index(floor) + 1:]
    offenders = sorted(m for m in loaded for hi in above if m == f"cugraphlab.{hi}" or m.startswith(f"cugraphlab.{hi}.")
                       or (hi == "cli" and m.startswith("cugraphlab.cli")))
    assert offenders == [], f"cugraphlab.{floor} loads higher floors: {offenders}"


def test_every_module_of_a_floor_stays_on_or_below_it():
    """Each module imported alone (not only the floor's __init__)."""
    import pkgutil

    import cugraphlab

    bad = []
    for info in pkgutil.walk_packages(cugraphlab.__path__, "cugraphlab."):
        parts = info.name.split(".")
        if len(parts) < 3 or parts[1] not in FLOORS:
            continue
        above = FLOORS[FLOORS.index(parts[1]) + 1:]
        loaded = _loaded_after_import(".".join(parts[1:]))
        bad += [(info.name, m) for m in loaded for hi in above if m.startswith(f"cugraphlab.{hi}")]  # cli: cli_*
    assert bad == []


def _upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(module, what it imports on a higher floor), the import read from the source wherever it stands."""
    def floor(m: str) -> int | None:
        parts = m.split(".")
        return FLOORS.index(parts[1]) if len(parts) > 1 and parts[1] in FLOORS else None

    return sorted((m, d) for m, deps in graph.items() for d in deps
                  if floor(m) is not None and floor(d) is not None and floor(d) > floor(m))


def test_no_import_anywhere_points_up_a_floor():
    """Read from the source: an import inside a function counts too (what a drawing of the imports shows as an
    arrow running back up), not only what importing a module loads."""
    assert _upward(_import_graph()) == []
    assert _upward({"cugraphlab.graphs.inspect": {"cugraphlab.report.files", "cugraphlab.core.files"},
                    "cugraphlab.report.show": {"cugraphlab.bench.run"}}) == [("cugraphlab.graphs.inspect",
                                                                               "cugraphlab.report.files")]


def test_the_top_level_offers_a_small_public_api_from_the_subpackages():
    """``import cugraphlab`` offers what a script needs (at most 45 names), each the same object as in the
    subpackage that defines it; the subpackages' own ``__all__`` do not clash with each other."""
    import cugraphlab
    from cugraphlab import bench, core, experiment, graphs

    assert len(cugraphlab.__all__) <= 45, len(cugraphlab.__all__)
    assert len(set(cugraphlab.__all__)) == len(cugraphlab.__all__)
    subs = {"core": core, "graphs": graphs, "experiment": experiment, "bench": bench}
    import importlib

    for name in cugraphlab.__all__[1:]:
        home = cugraphlab._PUBLIC[name]  # a subpackage, or one of its wings ("bench.measure")
        package = subs.get(home) or importlib.import_module(f"cugraphlab.{home}")
        assert name in package.__all__, (name, home)
        assert getattr(cugraphlab, name) is getattr(package, name)
    names = [n for sub in subs.values() for n in sub.__all__]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    for sub in subs.values():
        for n in sub.__all__:
            assert getattr(sub, n) is not None
    code = "import cugraphlab; print(' '.join(n for n in dir(cugraphlab) if not n.startswith('_')))"
    shown = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert shown == set(cugraphlab.__all__[1:]) | {"core", "graphs", "experiment", "bench", "report", "cli"}


def _imports_of(path, module: str, modules: set[str]) -> set[str]:
    """The package modules ``module`` (at ``path``) imports, at module level or inside functions."""
    import ast

    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                base = parts if is_pkg else parts[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target in modules:
                out.add(target)
            out |= {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
    out.discard(module)
    return out


@functools.lru_cache(maxsize=1)
def _import_graph() -> dict[str, set[str]]:
    from pathlib import Path

    import cugraphlab

    root = Path(cugraphlab.__file__).parent
    paths = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        paths[name] = path
    return {m: _imports_of(p, m, set(paths)) for m, p in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_back_through_others():
    """Zero import circles among the package's modules, counting imports inside functions and packages'
    ``__init__`` files: a circle is two ideas that should be one module, or a third that both need."""
    assert _cycles(_import_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_importing_the_package_loads_no_subpackage():
    loaded = _loaded_after_import("_version")
    assert not any(m.split(".")[1] in FLOORS for m in loaded if m.count(".") >= 1), loaded


def _modules_under(prefix: str) -> list[str]:
    import pkgutil

    import cugraphlab

    return [info.name for info in pkgutil.walk_packages(cugraphlab.__path__, "cugraphlab.")
            if info.name == prefix or info.name.startswith(prefix + ".")]


@pytest.mark.parametrize("wing, sibling", [("bench.compare", "bench.scale"), ("bench.scale", "bench.compare")])
def test_sibling_wings_never_import_each_other(wing, sibling):
    bad = []
    for name in _modules_under(f"cugraphlab.{wing}"):
        loaded = _loaded_after_import(name[len("cugraphlab."):])
        bad += [(name, m) for m in loaded if m == f"cugraphlab.{sibling}" or m.startswith(f"cugraphlab.{sibling}.")]
    assert bad == []


def test_a_cli_family_imports_no_other_family():
    """``cli/X.py`` loads the cli package and its shared ``args`` only; ``run`` may load ``compare`` (run --compare)
    when its handler runs, never at import."""
    from cugraphlab.cli import FAMILIES

    shared = {"cugraphlab.cli", "cugraphlab.cli.args"}
    bad = []
    for family in FAMILIES:
        loaded = {m for m in _loaded_after_import(f"cli.{family}") if m.startswith("cugraphlab.cli")}
        bad += [(family, m) for m in loaded - shared - {f"cugraphlab.cli.{family}"}]
    assert bad == []


#: Families that measure nothing, so have no bench floor: ``show`` reads saved records (bench.records) and renders them.
NO_BENCH_FLOOR = {"show"}


def test_every_family_has_its_name_on_every_floor_it_has():
    """A command family X is ``cli/X.py``, ``report/X.py`` and, in bench, ``bench/X.py``, the wing ``bench/X/``, or
    ``bench/<wing>/X.py`` (the graph API's families sit in ``bench/graphs/``), unless it measures nothing
    (``NO_BENCH_FLOOR``: then it has no bench module of its name either)."""
    from pathlib import Path

    import cugraphlab
    from cugraphlab.cli import FAMILIES

    root = Path(cugraphlab.__file__).parent
    bench = root / "bench"
    for family in FAMILIES:
        assert (root / "cli" / f"{family}.py").is_file(), family
        assert (root / "report" / f"{family}.py").is_file(), family
        if family in NO_BENCH_FLOOR:
            assert not ((bench / f"{family}.py").is_file() or (bench / family).is_dir()), family
            continue
        assert ((bench / f"{family}.py").is_file() or (bench / family / "__init__.py").is_file()
                or any(bench.glob(f"*/{family}.py"))), family
    # measure and graphs are families of several commands: each command has its bench module in the wing
    for command in ("latency", "timeline", "sweep"):
        assert (bench / "measure" / f"{command}.py").is_file(), command
    for command in ("update", "conditional"):
        assert (bench / "graphs" / f"{command}.py").is_file(), command


def test_bench_keeps_at_most_twenty_entries():
    from pathlib import Path

    import cugraphlab

    bench = Path(cugraphlab.__file__).parent / "bench"
    entries = sorted(p.name for p in bench.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 19, entries


#: bench's base: what every family of bench builds on. It knows no family: no module of it imports a family's
#: module or wing (``run``, ``measure/``, ``graphs/``, ``compare/``, ``scale/``, ``scaling/``, ``doctor``, ``diff``),
#: at module level or inside a function (bench/__init__.py says the same).
BENCH_BASE = ("records", "stats", "timing", "workers", "probes", "native", "paired")


def _bench_wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "bench" else None


def _base_offenders(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(base module, what it imports above the base): a bench family, bench's lazy face, report or cli."""
    bad = []
    for module, deps in sorted(graph.items()):
        if _bench_wing(module) not in BENCH_BASE:
            continue
        for dep in sorted(deps):
            family = dep.startswith("cugraphlab.bench") and _bench_wing(dep) not in BENCH_BASE
            if family or dep.split(".")[1] in ("report", "cli"):
                bad.append((module, dep))
    return bad


def test_the_base_of_bench_imports_no_family():
    """Read from the source (imports inside functions count) and seen at run time (each module imported alone)."""
    graph = _import_graph()
    assert {_bench_wing(m) for m in graph} >= set(BENCH_BASE)
    assert _base_offenders(graph) == []
    # imported alone, a module loads its parent packages first (bench's __init__ imports nothing of its own)
    loaded = {m: set(v) - {"cugraphlab.bench"} for m, v in _loaded_map().items() if _bench_wing(m) in BENCH_BASE}
    assert len(loaded) >= 20
    assert _base_offenders(loaded) == []


def test_the_base_check_finds_a_family_import():
    graph = {"cugraphlab.bench.native.loops": {"cugraphlab.core.errors", "cugraphlab.bench.stats.summary"},
             "cugraphlab.bench.native.latency": {"cugraphlab.bench.paired.ways", "cugraphlab.bench.run"},
             "cugraphlab.bench.timing": {"cugraphlab.bench"},
             "cugraphlab.bench.run": {"cugraphlab.bench.measure.latency"}}
    assert _base_offenders(graph) == [("cugraphlab.bench.native.latency", "cugraphlab.bench.run"),
                                      ("cugraphlab.bench.timing", "cugraphlab.bench")]
