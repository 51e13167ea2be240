"""The house: floors only point down. Each floor, imported alone in a fresh interpreter, loads no floor above it."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

FLOORS = ["core", "graphs", "experiment", "bench", "report", "cli"]


def _loaded_after_import(module: str) -> set[str]:
    code = (f"import json, sys; import cugraphlab.{module}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('cugraphlab.'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout))


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


def test_public_api_reexports_the_subpackages_without_clashes():
    import cugraphlab
    from cugraphlab import bench, core, experiment, graphs

    names = [n for sub in (core, graphs, experiment, bench) for n in sub.__all__]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert set(names) <= set(cugraphlab.__all__)
    for n in names:
        assert getattr(cugraphlab, n) is not None


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


def test_every_family_has_its_name_on_every_floor_it_has():
    """A command family X is ``cli/X.py``, ``bench/X.py`` (or the wing ``bench/X/``) and ``report/X.py``."""
    from pathlib import Path

    import cugraphlab
    from cugraphlab.cli import FAMILIES

    root = Path(cugraphlab.__file__).parent
    for family in FAMILIES:
        assert (root / "cli" / f"{family}.py").is_file(), family
        assert (root / "report" / f"{family}.py").is_file(), family
        bench = root / "bench" / f"{family}.py"
        wing = root / "bench" / family / "__init__.py"
        assert bench.is_file() or wing.is_file() or family in ("measure", "graphs"), family
    # measure and graphs are families of several commands: each command has its bench module
    for command in ("latency", "timeline", "sweep", "update", "conditional"):
        assert (root / "bench" / f"{command}.py").is_file(), command
