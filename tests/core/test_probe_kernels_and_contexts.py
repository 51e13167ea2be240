"""kernels/hold.cu and kernels/clockprobe.cu compile with NVRTC (no GPU needed); CreatedContext on the fake driver."""
from __future__ import annotations

import pathlib

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"


@pytest.mark.parametrize("name, params", [("hold", 3), ("clockprobe", 2)])
def test_probe_kernels_compile(name, params, tmp_path):
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    c = compile_source((KERNELS / f"{name}.cu").read_text(), name, arch="sm_90", kind="cubin",
                       cache=Cache(tmp_path))
    assert c.image[:4] == b"\x7fELF" and name in c.registers
    ptx = compile_source((KERNELS / f"{name}.cu").read_text(), name, arch="sm_90", kind="ptx",
                         cache=Cache(tmp_path)).image.decode()
    assert f".entry {name}(" in ptx and "%globaltimer" in ptx
    assert ptx.count(f"{name}_param_") >= params


def test_the_hold_reads_its_flag_volatile_and_is_bounded(tmp_path):
    from cugraphlab.core.cache import Cache
    from cugraphlab.core.program import compile_source

    ptx = compile_source((KERNELS / "hold.cu").read_text(), "hold", arch="sm_90", kind="ptx",
                         cache=Cache(tmp_path)).image.decode()
    assert "ld.volatile" in ptx  # every read of the flag goes to memory
    assert "nanosleep" in ptx


def test_created_context_uses_the_13_form_and_is_destroyed(fake_driver, monkeypatch):
    from cugraphlab.core.context import CreatedContext, sched_flag

    calls = []

    def create(self, *args):
        calls.append(args)
        return (0, self._make("created context"))

    monkeypatch.setattr(type(fake_driver), "cuCtxCreate", create, raising=False)
    monkeypatch.setattr(type(fake_driver), "cuCtxDestroy",
                        lambda self, h: self._release(h, "created context"), raising=False)
    with CreatedContext(0, "blocking_sync") as ctx:
        assert ctx.sm_count == 132 and ctx.context in fake_driver.live("created context")
        s = ctx.create_stream()
        s.close()
    from cugraphlab.core._calls import bindings_major

    # 13.x: (ctxCreateParams or None, flags, dev); 12.x: (flags, dev)
    expected = (None, sched_flag("blocking_sync"), 0) if bindings_major() >= 13 else (sched_flag("blocking_sync"), 0)
    assert calls == [expected]
    assert not fake_driver.live("created context") and not fake_driver.released_twice()


def test_sched_names():
    from cugraphlab.core.context import sched_flag
    from cugraphlab.core.errors import InvalidArgumentError

    assert [sched_flag(n) for n in ("auto", "spin", "yield", "blocking_sync")] == [0, 1, 2, 4]
    with pytest.raises(InvalidArgumentError):
        sched_flag("busy")
