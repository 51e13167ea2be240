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
