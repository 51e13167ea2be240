"""cuda.core's names across its versions, and host copies through cuda.bindings (no other stack needed)."""
from __future__ import annotations

import numpy as np

from cugraphlab.graphs.field_gallery._field import check, skip


def core():
    """cuda.core's module holding Device (cuda.core, or cuda.core.experimental before 0.4)."""
    try:
        import cuda.core as mod

        if hasattr(mod, "Device"):
            return mod
    except Exception:
        pass
    try:
        import cuda.core.experimental as mod

        return mod
    except Exception as e:
        skip(f"cuda.core is not importable here ({type(e).__name__}: {e})")


def to_device(buf, host: np.ndarray) -> None:
    from cuda.bindings import driver

    err, = driver.cuMemcpyHtoD(int(buf.handle), host.ctypes.data, host.nbytes)
    assert int(err) == 0, err


def to_host(buf, n: int) -> np.ndarray:
    from cuda.bindings import driver

    out = np.empty(n, dtype=np.float32)
    err, = driver.cuMemcpyDtoH(out.ctypes.data, int(buf.handle), out.nbytes)
    assert int(err) == 0, err
    return out


def replay_and_check(graph, stream, src, dst, xh: np.ndarray, name: str = "copy by the replay") -> None:
    """The copy graph replayed: fresh inputs ``xh`` into ``src``, ``dst`` poisoned with NaN, one launch on
    ``stream``, then ``dst`` checked bit for bit against ``xh``."""
    to_device(src, xh)
    to_device(dst, np.full(xh.size, np.nan, dtype=np.float32))
    graph.launch(stream)
    stream.sync()
    check(name, to_host(dst, xh.size), xh)
