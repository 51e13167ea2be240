"""The check of saxpy.cu from the command line: ``--check saxpy_check.py:check``.

``cugraphlab measure saxpy.cu ... --args out,x,y,2.0,n`` fills every buffer with fresh random values before each
way's checked call and hands this function the buffers as they were filled (``inputs``) and as they are after the
call (``outputs``), by the names given in --args."""
import numpy as np

A = np.float32(2.0)  # the 2.0 of --args


def check(inputs, outputs):
    expected = A * inputs["x"] + inputs["y"]  # NumPy float32: one rounding after *, one after +
    got = outputs["out"]
    bad = np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32))
    assert bad == 0, f"{bad:,} of {got.size:,} elements differ from NumPy"
