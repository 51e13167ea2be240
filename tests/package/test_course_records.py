"""The H200 records the course shows travel inside the package (cugraphlab/course_records/, written by
notebooks/pack_records.py): every record a notebook reads is there, under 2 MB in all, copied from the committed
record it names (nothing in it that the committed record does not hold), and it renders exactly as that record
does, so a notebook run from the wheel prints what the committed notebook shows."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKED = ROOT / "cugraphlab" / "course_records"


def _pack():
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        import pack_records
    finally:
        sys.path.remove(str(ROOT / "notebooks"))
    return pack_records


def _subset(small, big, where="") -> list[str]:
    """Where ``small`` holds something ``big`` does not (a packed record may only leave things out)."""
    if isinstance(small, dict) and isinstance(big, dict):
        return [p for k, v in small.items() for p in
                (_subset(v, big[k], f"{where}/{k}") if k in big else [f"{where}/{k}: not in the committed record"])]
    if isinstance(small, list) and isinstance(big, list):
        if len(small) > len(big):
            return [f"{where}: {len(small)} items, the committed record has {len(big)}"]
        return [p for i, (a, b) in enumerate(zip(small, big)) for p in _subset(a, b, f"{where}[{i}]")]
    return [] if small == big else [f"{where}: {small!r} != {big!r}"]


def test_every_record_the_course_reads_is_packed_and_small():
    pack = _pack()
    used = pack.used()
    assert {"floor", "scaling_default", "doctor", "measure_saxpy_2_20"} <= set(used)
    index = json.loads((PACKED / "index.json").read_text())
    assert set(index) == set(used) == {p.stem for p in PACKED.glob("*.json")} - {"index"}
    for name in used:
        assert index[name] == pack.source_of(name), f"{name}: python3 notebooks/pack_records.py"
    total = sum(p.stat().st_size for p in PACKED.glob("*.json"))
    assert total <= pack.LIMIT, f"{total:,} bytes of records in the package"
    pyproject = (ROOT / "pyproject.toml").read_text()  # package data: the records, and the capstone's kernels
    assert '"cugraphlab" = ["py.typed", "course_records/*.json"]' in pyproject
    assert '"cugraphlab.kernels" = ["*.cu", "*.cuh"]' in pyproject and (ROOT / "kernels" / "mlp.cu").is_file()


@pytest.mark.parametrize("name", sorted(_pack().used()))
def test_a_packed_record_is_its_committed_record_trimmed_and_renders_the_same(name):
    from cugraphlab.report import render_record

    pack = _pack()
    part = pack.used()[name]
    full = json.loads((ROOT / pack.source_of(name)).read_text())
    packed = json.loads((PACKED / f"{name}.json").read_text())
    problems = _subset(packed, full)
    assert not problems, "\n".join(problems[:10])
    assert render_record(pack._dig(packed, part)) == render_record(pack._dig(full, part)), \
        f"{name}: python3 notebooks/pack_records.py"


def test_the_subset_check_sees_an_invented_value():
    assert _subset({"a": {"b": [1, 2]}}, {"a": {"b": [1, 2, 3]}, "c": 1}) == []
    assert _subset({"a": {"b": [1, 5]}}, {"a": {"b": [1, 2, 3]}}) == ["/a/b[1]: 5 != 2"]
    assert _subset({"x": 1}, {}) == ["/x: not in the committed record"]
