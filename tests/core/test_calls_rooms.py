"""The door to cuda.bindings in three rooms (core._door, core._compat, core._shims) gathered by core._calls: every
name still importable from core._calls, each room importable on its own, and one home for each name."""
import subprocess
import sys

import pytest

from cugraphlab.core import _calls, _compat, _door, _shims

ROOMS = {m.__name__: m for m in (_door, _compat, _shims)}


@pytest.mark.parametrize("room", ["_door", "_compat", "_shims", "_calls"])
def test_each_room_imports_on_its_own(room):
    code = (f"import cugraphlab.core.{room} as m; import sys; "
            "print(sorted(n for n in sys.modules if n.startswith('cugraphlab.core._')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    loaded = eval(p.stdout)
    assert "cugraphlab.core._calls" not in loaded or room == "_calls"  # the rooms never need the gathering


def test_every_name_of_the_door_is_importable_from_it_and_has_one_home():
    for name in _calls.__all__:
        obj = getattr(_calls, name)
        homes = [m for m in ROOMS.values() if name in getattr(m, "__all__", ()) or
                 (name.startswith("_") and name in vars(m))]
        assert len(homes) == 1, (name, [m.__name__ for m in homes])
        assert vars(homes[0])[name] is obj
        if callable(obj) and isinstance(getattr(obj, "__module__", None), str):
            assert obj.__module__ == homes[0].__name__, name
    for m in ROOMS.values():
        assert set(m.__all__) <= set(_calls.__all__), m.__name__
    assert _calls.graph_add_node.__module__ == "cugraphlab.core._shims"
    assert _calls.versions_fit.__module__ == "cugraphlab.core._compat"
    assert _calls.cu.__module__ == "cugraphlab.core._door"


def test_the_rooms_reach_the_door_at_call_time(monkeypatch):
    """A stand-in for the door's ``cu`` is what the shims call: the tests' seam is the door alone."""
    seen = []
    monkeypatch.setattr(_door, "cu", lambda name, *args: seen.append((name, args)) or "ctx")
    monkeypatch.setattr(_shims, "bindings_major", lambda: 12)
    assert _calls.ctx_create(4, "dev") == "ctx"
    monkeypatch.setattr(_shims, "bindings_major", lambda: 13)
    assert _calls.ctx_create(4, "dev") == "ctx"
    assert seen == [("cuCtxCreate", (4, "dev")), ("cuCtxCreate", (None, 4, "dev"))]
