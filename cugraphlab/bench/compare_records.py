"""The records of ``cugraphlab compare``: one flat row per (stack, way, mode, size, round), and the whole result.

Rows are plain dataclasses (JSON and CSV ready through ``cugraphlab.report.files``); ``CompareResult.from_dict``
rebuilds a result from its JSON so it can be rendered or plotted again on a machine with no GPU.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

__all__ = ["StackRow", "CompareResult", "WALL_CLOCK", "DEVICE_CLOCK", "STATUSES"]

WALL_CLOCK = "perf_counter_ns (host wall clock, from before the first launch until the end event's sync returns)"
DEVICE_CLOCK = "CUDA events recorded on the stack's own stream around the same loop"
# ok: measured; unsupported: the stack has no such mode (the note says why); unavailable: the stack could not be
# imported or started; failed: it started but this mode raised, or its worker failed or hung.
STATUSES = ("ok", "unsupported", "unavailable", "failed")


@dataclass
class StackRow:
    """One mode of one way of one stack at one size in one round (one worker process).

    ``wall_*`` µs per repetition (a launch for ``launch``, a chain iteration otherwise) from the wall clock,
    ``device_*`` from CUDA events (None where the stack has no events); medians and p5-p95 over the repeats.
    ``mismatches`` counts elements that differ in bits from NumPy, summed over the repeats' checks.
    """

    stack: str
    way: str
    mode: str
    size: int
    round: int
    status: str = "ok"
    count: int = 0                 # launches (launch) or chain iterations per timed loop
    repeats: int = 0
    kernels: int | None = None     # kernels per repetition
    wall_us: float | None = None
    wall_p5: float | None = None
    wall_p95: float | None = None
    device_us: float | None = None
    device_p5: float | None = None
    device_p95: float | None = None
    same_cubin: bool = False       # launches cugraphlab's own NVRTC cubin
    checked: int = 0               # outputs compared with NumPy
    mismatches: int | None = None
    version: str = ""
    note: str = ""
    seconds: float | None = None   # the worker's wall time (the same for every row of one worker)

    @property
    def measured(self) -> bool:
        return self.status == "ok" and self.wall_us is not None

    @property
    def bit_exact(self) -> bool | None:
        if not self.measured or self.mismatches is None:
            return None
        return self.mismatches == 0


@dataclass
class CompareResult:
    """A comparison: its configuration, every row, the environment, the clocks and each stack's versions."""

    config: dict
    rows: list[StackRow]
    env: dict = field(default_factory=dict)
    clocks: dict = field(default_factory=lambda: {"wall": WALL_CLOCK, "device": DEVICE_CLOCK})
    versions: dict = field(default_factory=dict)  # stack -> {package: version, ...} as its worker saw them
    kind: str = "cugraphlab.compare"

    @property
    def sizes(self) -> list[int]:
        return list(dict.fromkeys(r.size for r in self.rows))

    @property
    def rounds(self) -> list[int]:
        return sorted({r.round for r in self.rows})

    def rows_for(self, size: int | None = None, stack: str | None = None, mode: str | None = None) -> list[StackRow]:
        return [r for r in self.rows if (size is None or r.size == size) and (stack is None or r.stack == stack)
                and (mode is None or r.mode == mode)]

    @property
    def ok(self) -> bool:
        """Every measured row matched NumPy bit for bit, except rows whose note explains why they cannot."""
        return all(r.mismatches == 0 for r in self.rows if r.measured and "cannot be bit-exact" not in r.note)

    def csv_rows(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def to_dict(self) -> dict:
        return {"kind": self.kind, "config": self.config, "env": self.env, "clocks": self.clocks,
                "versions": self.versions, "rows": [asdict(r) for r in self.rows]}

    @classmethod
    def from_dict(cls, d: dict) -> "CompareResult":
        """Rebuild from ``to_dict()`` output (a JSON file); unknown row keys are ignored."""
        names = {f.name for f in fields(StackRow)}
        rows = [StackRow(**{k: v for k, v in r.items() if k in names}) for r in d.get("rows", [])]
        return cls(config=dict(d.get("config") or {}), rows=rows, env=dict(d.get("env") or {}),
                   clocks=dict(d.get("clocks") or {}), versions=dict(d.get("versions") or {}),
                   kind=d.get("kind", "cugraphlab.compare"))
