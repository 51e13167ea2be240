"""The capture doctor measured: the gallery's diagnoses, the modes table, and what ``explain=True`` costs.

Overhead: the same capture (``launches`` empty-kernel launches made through ``cu("cuLaunchKernel", ...)``, so the
doctor sees and checks every one, its worst case) timed with and without ``explain=True``, interleaved sample by
sample (host clock: perf_counter_ns from before cuStreamBeginCapture to after cuStreamEndCapture). Then the graph
of each is instantiated and replayed (``replays`` cuGraphLaunch calls per sample, the stream synchronized at the
end of each sample, host clock): the doctor only watches the recording, so the two executables must replay alike.
With ``cupti=True`` a third variant, ``explain=True, cupti=True`` (every driver and runtime call also reported by
CUPTI's callback to Python, graphs.doctor.cupti), is interleaved with the two, and the gallery adds the cases
made past cugraphlab's door (FOREIGN_CASES), which only the CUPTI mode can name.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

from ..core._calls import cu
from ..core.device import Device
from ..core.errors import positive_int
from ..core.renamed import renamed_function
from ..experiment.doctor_gallery import CASES, FOREIGN_CASES, run_gallery
from ..graphs.capture import CAPTURE_MODES, capture
from .records.environment import collect
from .records.record import Record, clocks
from .stats.summary import summarize

__all__ = ["DoctorResult", "field_counts", "measure_doctor", "measure_overhead", "run_doctor"]


def field_counts(rows) -> dict:
    """The counts of field gallery rows (FieldResult / ReplayResult, or their dicts): cases, run (not skipped),
    caught, fixes that work, crashes, hangs, skipped."""
    rows = [r.to_dict() if hasattr(r, "to_dict") else r for r in rows]
    run = [r for r in rows if not r["skipped"]]
    return {"cases": len(rows), "run": len(run), "caught": sum(bool(r["caught"]) for r in run),
            "fix_works": sum(bool(r["fix_works"]) for r in run), "crashes": sum(bool(r["crashed"]) for r in rows),
            "hangs": sum(bool(r["hung"]) for r in rows), "skipped": len(rows) - len(run)}


@dataclass(kw_only=True)
class DoctorResult(Record):
    """``cases``: each gallery case in its teaching mode (CaseResult.to_dict); ``modes``: every case in every mode;
    ``overhead``: Summary dicts of capture and replay µs with and without ``explain=True``."""

    KIND: ClassVar[str] = "cugraphlab.doctor"
    cases: list = field(default_factory=list)
    modes: list = field(default_factory=list)
    overhead: dict = field(default_factory=dict)
    field_cases: list = field(default_factory=list)  # the field gallery (experiment.doctor_gallery_field), FieldResult dicts
    replay: list = field(default_factory=list)  # its replay hazards (ReplayResult dicts)
    clean: list = field(default_factory=list)  # its correct programs (CleanResult dicts)

    @property
    def named_all(self) -> bool:
        return bool(self.cases) and all(c["named"] for c in self.cases)

    @property
    def restored_all(self) -> bool:
        return all(c["restored"] for c in self.cases + self.modes)

    @property
    def false_alarms(self) -> int:
        """Findings in the clean case, over every mode."""
        return sum(len(c["diagnosis"]["findings"]) for c in self.cases + self.modes
                   if c["case"] == "clean" and c["diagnosis"])

    @property
    def field_counts(self) -> dict:
        """The field gallery's counts: cases, run (not skipped), caught, fixes that work, crashes, hangs."""
        return field_counts(self.field_cases)

    @property
    def field_ok(self) -> bool:
        """No crash, no hang, every case that ran caught and fixed (replay hazards too), every clean program clean."""
        n, r = self.field_counts, field_counts(self.replay)
        clean = all(c["ok"] or c["skipped"] for c in self.clean)
        return (n["crashes"] == 0 and n["hangs"] == 0 and n["caught"] == n["run"] == n["fix_works"]
                and r["crashes"] == 0 and r["hangs"] == 0 and r["caught"] == r["run"] == r["fix_works"] and clean)

    @property
    def ok(self) -> bool:
        ours = (self.named_all and self.restored_all and self.false_alarms == 0) if self.cases else True
        ran = any(not c["skipped"] for c in self.field_cases)
        return ours and self.field_ok and bool(self.cases or ran)

    def _extra_dict(self) -> dict:
        return {"named_all": self.named_all, "restored_all": self.restored_all, "false_alarms": self.false_alarms,
                "field_counts": self.field_counts, "ok": self.ok}


def _capture_once(stream, kernel, launches: int, explain: bool, cupti: bool = False):
    t0 = time.perf_counter_ns()
    with capture(stream, explain=explain or cupti, cupti=cupti) as cap:
        for _ in range(launches):
            cu("cuLaunchKernel", kernel.handle, 1, 1, 1, 1, 1, 1, 0, stream.handle, 0, 0)
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e3, cap.graph


_VARIANTS = {"plain": (False, False), "explained": (True, False), "cupti": (True, True)}


def measure_overhead(device, kernels, record: DoctorResult, *, launches: int = 64, samples: int = 31,
                     replays: int = 200, cupti: bool = False) -> dict:
    """Capture µs with and without explain (and, with ``cupti``, in the CUPTI mode), and replay µs per
    cuGraphLaunch of each variant's graph (interleaved sample by sample)."""
    kernel = kernels["empty"]
    variants = ("plain", "explained", "cupti") if cupti else ("plain", "explained")
    raw = {f"{phase}_{v}": [] for phase in ("capture", "replay") for v in variants}
    with device.create_stream() as s:
        for _ in range(3):  # warm-up
            for v in variants:
                _capture_once(s, kernel, launches, *_VARIANTS[v])[1].close()
        for _ in range(samples):
            for v in variants:
                us, graph = _capture_once(s, kernel, launches, *_VARIANTS[v])
                graph.close()
                raw[f"capture_{v}"].append(us)
        graphs = {v: _capture_once(s, kernel, launches, *_VARIANTS[v])[1] for v in variants}
        execs = {}
        try:
            for k, g in graphs.items():
                execs[k] = g.instantiate()
                execs[k].upload(s)
            for _ in range(samples):
                for k, exe in execs.items():
                    t0 = time.perf_counter_ns()
                    for _ in range(replays):
                        exe.launch(s)
                    s.synchronize()
                    raw[f"replay_{k}"].append((time.perf_counter_ns() - t0) / 1e3 / replays)
        finally:
            for exe in execs.values():
                exe.close()
            for g in graphs.values():
                g.close()
    out = {}
    for label, values in raw.items():
        clock = "host_api" if label.startswith("capture") else "host_call"
        record.keep_samples(label, values, "us", clock)
        out[label] = summarize(values, unit="us", clock=clock).to_dict()
    plain, explained = out["capture_plain"]["median"], out["capture_explained"]["median"]
    out["launches_per_capture"] = launches
    out["explain_us_per_call"] = (explained - plain) / launches
    out["capture_ratio"] = explained / plain if plain else None
    out["replay_ratio"] = (out["replay_explained"]["median"] / out["replay_plain"]["median"]
                           if out["replay_plain"]["median"] else None)
    if cupti:
        with_cupti = out["capture_cupti"]["median"]
        out["cupti_us_per_call"] = (with_cupti - explained) / launches  # over explain=True alone
        out["cupti_capture_ratio"] = with_cupti / plain if plain else None
        out["cupti_replay_ratio"] = (out["replay_cupti"]["median"] / out["replay_plain"]["median"]
                                     if out["replay_plain"]["median"] else None)
    return out


def measure_doctor(device: int = 0, *, samples: int = 31, launches: int = 64, overhead: bool = True,
                   modes=CAPTURE_MODES, cupti: bool = False, foreign: bool | None = None,
                   gallery: str = "ours", field_timeout: float = 90.0, field_workers: int = 4) -> DoctorResult:
    """The capture doctor's gallery, its modes table and the cost of ``explain=True`` on a device (what
    ``cugraphlab doctor`` does).

    The gallery runs every case in its teaching mode (the diagnosis each mistake gets), the modes table every case
    in every capture mode; with ``overhead``, capture and replay of ``launches`` empty launches are timed plain
    and explained (host clock, ``samples`` each; ``measure_overhead``). ``gallery="field"`` runs instead the field
    gallery (``experiment.doctor_gallery_field``: each case and its fixed twin in a process of its own).

    Parameters
    ----------
    device : int
        The device ordinal.
    samples : int
        Timed samples of each overhead figure.
    launches : int
        Launches captured (and replayed) per overhead sample.
    overhead : bool
        Measure the cost of ``explain=True`` (and of CUPTI, with ``cupti``).
    modes : sequence of str
        The capture modes of the modes table (default: every mode, ``graphs.capture.CAPTURE_MODES``).
    cupti : bool
        Every capture in the CUPTI mode too (``graphs.doctor.cupti``), its cost measured beside.
    foreign : bool or None
        Add the cases made past cugraphlab's door (``FOREIGN_CASES``); None: as ``cupti``.
    gallery : str
        "ours" (the above), "field" (only the field gallery) or "all" (both).
    field_timeout : float
        Seconds each field script may run.
    field_workers : int
        Field scripts run at a time.

    Returns
    -------
    DoctorResult
        The gallery's cases, the modes table, the overhead figures (medians with spread, ratios) and, for "field"
        or "all", the field cases, their replay hazards and the clean programs; ``ok`` says whether every case was
        named right and nothing raised a false alarm.

    Raises
    ------
    InvalidArgumentError
        ``gallery`` not ours, field or all, or ``samples`` or ``launches`` not a positive integer.
    UnsupportedError
        ``cupti`` without cupti-python (before any GPU work).
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    if gallery not in ("ours", "field", "all"):
        from ..core.errors import InvalidArgumentError

        raise InvalidArgumentError(f"gallery must be ours, field or all, got {gallery!r}")
    if gallery == "field":
        record = DoctorResult(config={"device": device, "gallery": "field"}, clocks=clocks("host_api"))
        _run_field(record, field_timeout, field_workers)
        return record
    record = _run_ours(device, samples, launches, overhead, modes, cupti, foreign)
    if gallery == "all":
        record.config["gallery"] = "all"
        _run_field(record, field_timeout, field_workers)
    return record


def _run_ours(device: int, samples: int, launches: int, overhead: bool, modes, cupti: bool,
              foreign: bool | None) -> DoctorResult:
    """Our gallery, the modes table and (with ``overhead``) the cost of explaining: ``measure_doctor``'s record."""
    samples = positive_int("samples", samples)
    launches = positive_int("launches", launches)
    cases = CASES + (FOREIGN_CASES if (cupti if foreign is None else foreign) else ())
    config = {"device": device, "samples": samples, "launches": launches, "modes": list(modes),
              "cases": [c.key for c in cases], "cupti": bool(cupti)}
    if cupti:
        from ..graphs.doctor.cupti import cupti_library

        config["cupti_library"] = cupti_library().describe()  # UnsupportedError before any GPU work
    record = DoctorResult(config=config, clocks=clocks("host_api", "host_call"))
    with Device(device) as dev:
        record.env = collect(dev)
        gallery, table = run_gallery(dev, modes, cases, cupti=cupti)
        record.cases = [r.to_dict() for r in gallery]
        record.modes = [r.to_dict() for r in table]
        if overhead:
            with dev.load_kernels(names=["empty"]) as ks:
                record.overhead = measure_overhead(dev, ks, record, launches=launches, samples=samples,
                                                   cupti=cupti)
    return record

def _run_field(record: DoctorResult, timeout: float, workers: int) -> None:
    """The field gallery, its replay hazards and its clean programs, each script in a process of its own."""
    from ..experiment.doctor_gallery_field import run_clean, run_field_gallery, run_replay

    record.field_cases = [r.to_dict() for r in run_field_gallery(timeout=timeout, workers=workers)]
    record.replay = [r.to_dict() for r in run_replay(timeout=timeout, workers=workers)]
    record.clean = [r.to_dict() for r in run_clean(timeout=timeout, workers=workers)]


#: the old name of measure_doctor (warns, then calls it): core.renamed.renamed_function
run_doctor = renamed_function("run_doctor", measure_doctor)
