"""FloorFakeDriver that also remembers the shape of every kernel launch (grid x block), so a test can see which
launch configurations a measurement really used (the figures of the fake's clock mean nothing)."""
from __future__ import annotations

from fake_driver import OK, patch_driver
from fake_floor import FloorFakeDriver


class ShapeFakeDriver(FloorFakeDriver):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.shapes: list[tuple[int, int]] = []

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.shapes.append((int(gx), int(bx)))
        return (OK,)


def install_shape_driver(monkeypatch, root) -> ShapeFakeDriver:
    """A ShapeFakeDriver (4 MiB of L2) in place of cuda.bindings' driver, a fresh device init, and ``root``'s kernels/
    (kernels/l2read.cu is new: the installed package may point at another checkout)."""
    fake = ShapeFakeDriver(l2_bytes=4 << 20)
    patch_driver(monkeypatch, fake)
    monkeypatch.setattr("cugraphlab.core.sources.kernel_dir", lambda: root / "kernels")
    return fake
