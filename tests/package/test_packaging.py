"""The wheel carries every subpackage, every kernel source (package data mapped from kernels/) and py.typed."""
from __future__ import annotations

import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_contains_every_subpackage_and_kernel(built_wheel):
    names = set(zipfile.ZipFile(built_wheel).namelist())
    kernels = sorted(p.name for p in (ROOT / "kernels").iterdir() if p.suffix in (".cu", ".cuh"))
    assert len(kernels) >= 7
    missing = [k for k in kernels if f"cugraphlab/kernels/{k}" not in names]
    assert missing == [], f"kernel sources missing from the wheel: {missing}"
    packages = sorted(str(p.parent.relative_to(ROOT)) for p in (ROOT / "cugraphlab").rglob("__init__.py"))
    missing = [p for p in packages if f"{p}/__init__.py" not in names]
    assert missing == [], f"subpackages missing from the wheel (pyproject's package list): {missing}"
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "cugraphlab").rglob("*.py"))
    missing = [m for m in modules if m not in names]
    assert missing == [], f"modules missing from the wheel: {missing}"
    assert "cugraphlab/py.typed" in names
    assert not any(n.startswith("tests/") for n in names)
