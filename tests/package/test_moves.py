"""Names and modules that moved since 0.1.0 say where they went (cugraphlab/_moves.py), whichever way a script
looks them up; every new home exists; CHANGELOG.md names every entry of the table; the version is 0.2.0 everywhere
it is said. No GPU needed."""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cugraphlab
from cugraphlab._moves import MODULES, NAMES, TOP_LEVEL, moved, moves

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()


def _resolve(dotted: str):
    """The object at ``dotted``: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("name, home", [
    ("resolve_arch", "cugraphlab.core.resolve_arch"), ("init", "cugraphlab.core.init"),
    ("driver_version", "cugraphlab.core.driver_version"), ("nvrtc_version", "cugraphlab.core.nvrtc_version"),
    ("MODES", "cugraphlab.experiment.MODES"), ("Runner", "cugraphlab.experiment.Runner"),
    ("try_exec_update", "cugraphlab.graphs.try_exec_update"), ("Topology", "cugraphlab.graphs.Topology"),
    ("KernelSet", "cugraphlab.core.KernelSet"), ("timed_loop", "cugraphlab.bench.timed_loop"),
])
def test_the_names_a_user_hit_say_where_they_went(name, home):
    with pytest.raises(AttributeError) as e:
        getattr(cugraphlab, name)
    assert str(e.value) == f"cugraphlab.{name} moved to {home}"
    assert not hasattr(cugraphlab, name) and name not in dir(cugraphlab)
    assert _resolve(home) is not None


@pytest.mark.parametrize("old", sorted(moves()))
def test_every_entry_of_the_table_raises_its_sentence_and_its_new_home_exists(old):
    parent, _, name = old.rpartition(".")
    if old in MODULES:
        with pytest.raises(ModuleNotFoundError) as e:
            importlib.import_module(old)
        assert str(e.value) == moved(old)
    else:
        try:
            package = importlib.import_module(parent)
        except ImportError as e:  # the package itself moved (bench.stacks): its import says so
            assert str(e) == moved(parent)
        else:
            with pytest.raises(AttributeError) as e:
                getattr(package, name)
            assert str(e.value) == moved(old)
            with pytest.raises(ImportError) as e:  # `from package import name`: the same sentence
                exec(f"from {parent} import {name}", {})
            assert str(e.value) == moved(old)
    for home in re.findall(r"cugraphlab(?:\.\w+)+", moves()[old]):  # every name the sentence points to is there
        assert _resolve(home) is not None, home


def test_the_top_level_table_holds_no_current_top_level_name_and_each_is_in_its_subpackage():
    for sub, names in TOP_LEVEL.items():
        package = importlib.import_module(f"cugraphlab.{sub}")
        for name in names.split():
            assert name not in cugraphlab.__all__
            assert name in package.__all__, f"cugraphlab.{sub}.{name}"


def test_names_that_never_were_get_pythons_own_words():
    with pytest.raises(AttributeError, match="module 'cugraphlab' has no attribute 'no_such_name'"):
        cugraphlab.no_such_name
    with pytest.raises(ModuleNotFoundError, match="No module named 'cugraphlab.no_such_module'"):
        importlib.import_module("cugraphlab.no_such_module")
    with pytest.raises(ImportError, match="cannot import name 'no_such_name'"):
        exec("from cugraphlab import no_such_name", {})


def test_calling_the_bench_measure_package_names_the_sampler_and_the_measure_function():
    from cugraphlab.bench import measure

    assert measure.__name__ == "cugraphlab.bench.measure" and callable(measure.measure)
    with pytest.raises(TypeError) as e:
        measure(lambda: 1.0)
    assert "cugraphlab.bench.sample_adaptively" in str(e.value) and "cugraphlab.measure" in str(e.value)
    assert callable(_resolve("cugraphlab.bench.sample_adaptively"))


def _bullets(section: str) -> list[str]:
    """The bullets of the CHANGELOG section headed ``section`` (each joined to one line)."""
    body = CHANGELOG.split(f"### {section}\n", 1)[1].split("\n#", 1)[0]
    return [" ".join(b.split()) for b in re.split(r"\n(?=- )", body) if b.startswith("- ")]


def test_the_changelog_names_every_entry_of_the_table_and_no_other():
    listed = {}
    for bullet in _bullets("Names that left the top level"):
        sub = re.match(r"- to `cugraphlab\.(\w+)`: ", bullet).group(1)
        listed[sub] = set(re.findall(r"`(\w+)`", bullet.split(": ", 1)[1]))
    assert listed == {sub: set(names.split()) for sub, names in TOP_LEVEL.items()}
    for section, table in (("Names that moved between subpackages, were renamed, or left the package", NAMES),
                           ("Modules that moved", MODULES)):
        entries = dict(re.match(r"- `([\w.]+)` → (.*)", b).groups() for b in _bullets(section))
        assert set(entries) == set(table), section
        for old, new in table.items():
            assert entries[old].strip("`") == " ".join(new.split()), old


def test_the_changelog_records_the_changed_return_shapes():
    shapes = CHANGELOG.split("### Changed return shapes and meanings", 1)[1].split("\n### ", 1)[0]
    for words in ("try_exec_update", "UpdateReport", "add_alloc_node", "returns the node", "alloc_node_info",
                  "segment_us", "sample_adaptively", "check_record", "Chain.run(mode"):
        assert words in shapes, words


def test_the_version_is_0_2_0_in_the_package_the_changelog_the_cli_and_every_record(capsys):
    from cugraphlab.bench.records.environment import package_versions

    assert cugraphlab.__version__ == "0.2.0"
    assert re.search(r"^## (\S+)", CHANGELOG, re.M).group(1) == cugraphlab.__version__
    assert package_versions()["cugraphlab"] == cugraphlab.__version__  # in every record's environment
    r = subprocess.run([sys.executable, "-m", "cugraphlab", "--version"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.stdout.strip() == "cugraphlab 0.2.0"
    from cugraphlab.cli import main

    main(["info"])  # with or without a GPU: the versions line is printed
    assert "cugraphlab 0.2.0" in capsys.readouterr().out
