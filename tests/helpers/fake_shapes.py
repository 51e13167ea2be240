"""FloorFakeDriver that also remembers the shape of every kernel launch (grid x block), so a test can see which
launch configurations a measurement really used (the figures of the fake's clock mean nothing)."""
from __future__ import annotations

from fake_driver import OK
from fake_floor import FloorFakeDriver


class ShapeFakeDriver(FloorFakeDriver):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.shapes: list[tuple[int, int]] = []

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.shapes.append((int(gx), int(bx)))
        return (OK,)
