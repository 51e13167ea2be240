"""The field gallery run: every case of graphs.field_gallery, the mistake and its fixed twin, each in its own
process under the doctor (``graphs.doctor.run_explained``, what ``cugraphlab doctor CASE.py`` does), with a timeout.

Per case: **caught** when the doctor's first finding names the expected class, the call and the marked line of
the case's file; **fix works** when the fixed twin exits 0 (its own check of the replayed result passed) with no
finding in any capture; **crash** when either process died by a signal (a segfault in the teardown of an
invalidated capture, say) or Python's fatal error handler spoke; **hang** when either ran past the timeout; a case
whose stack or GPUs are missing exits 77 and is **skipped** with its one-line reason. No timer here.

    python -m cugraphlab.experiment.doctor_gallery_field --child KEY broken|fixed OUT.json   # one process
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..graphs.field_gallery import CASES, CLEAN, HERE, REPLAY_CASES, FieldCase, case
from ..graphs.field_gallery._field import SKIP

__all__ = ["FieldResult", "Run", "child_main", "judge", "run_case", "run_field_gallery"]

TIMEOUT = 90.0


@dataclass
class Run:
    """One process: its exit code (negative: killed by that signal), whether it timed out, the diagnoses it
    wrote, the last lines of its output."""

    variant: str
    code: int | None = None
    timed_out: bool = False
    diagnoses: list = field(default_factory=list)
    tail: str = ""
    seconds: float = 0.0
    sites: list = field(default_factory=list)  # the replay watch's table (graphs.doctor.stacks.site_stats)

    @property
    def skipped(self) -> str:
        if self.code != SKIP:
            return ""
        line = next((ln for ln in self.tail.splitlines() if ln.startswith("skip: ")), "skip: (no reason given)")
        return line[len("skip: "):]

    @property
    def crashed(self) -> bool:
        return (self.code is not None and (self.code < 0 or self.code in (134, 139))) or \
            "Fatal Python error" in self.tail

    @property
    def first(self) -> dict | None:
        for d in self.diagnoses:
            if d.get("findings"):
                return d["findings"][0]
        return None


@dataclass
class FieldResult:
    """One case: both runs and the verdicts."""

    key: str
    thread: str
    stack: str
    kind: str
    call: str
    line: int
    broken: Run
    fixed: Run

    @property
    def skipped(self) -> str:
        return self.broken.skipped or self.fixed.skipped

    @property
    def caught(self) -> bool:
        f = self.broken.first
        return f is not None and judge(f, self.kind, self.call, self.line, f"{self.key}.py")

    @property
    def fix_works(self) -> bool:
        return self.fixed.code == 0 and not self.fixed.timed_out and all(
            not d.get("findings") for d in self.fixed.diagnoses)

    @property
    def crashed(self) -> bool:
        return self.broken.crashed or self.fixed.crashed

    @property
    def hung(self) -> bool:
        return self.broken.timed_out or self.fixed.timed_out

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(skipped=self.skipped, caught=self.caught, fix_works=self.fix_works, crashed=self.crashed,
                 hung=self.hung)
        return d


def judge(finding: dict, kind: str, call: str, line: int, script: str = "") -> bool:
    """The doctor named the class ``kind``, a call ending in ``call`` (any case: the door names a cugraphlab
    case's ``s.synchronize()`` by its driver call, cuStreamSynchronize) and line ``line`` of the file ``script``
    (a file name; any file when empty)."""
    named, call = str(finding.get("call", "")).replace("()", "").lower(), call.lower()
    where = str(finding.get("where", ""))
    file, _, at = where.split(",", 1)[0].rpartition(":")
    in_file = not script or Path(file).name == script
    return finding.get("kind") == kind and (named == call or named.endswith(call)) and at == str(line) and in_file


def _child_command(key: str, variant: str, out: str) -> list[str]:
    return [sys.executable, "-X", "faulthandler", "-m", "cugraphlab.experiment.doctor_gallery_field", "--child",
            key, variant, out]


def run_case(c: FieldCase | str, variant: str, timeout: float = TIMEOUT) -> Run:
    """The case ``c`` (or the script of the gallery named ``c``) in one process (``variant``: "broken", "fixed"
    or "clean")."""
    key = c if isinstance(c, str) else c.key
    import time

    run = Run(variant)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "diagnoses.json")
        t0 = time.perf_counter()
        try:
            p = subprocess.run(_child_command(key, variant, out), capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL, check=False)
            run.code, text = p.returncode, (p.stdout or "") + (p.stderr or "")
        except subprocess.TimeoutExpired as e:
            run.timed_out = True
            text = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                           for x in (e.stdout, e.stderr))
        run.seconds = time.perf_counter() - t0
        run.tail = "\n".join(text.splitlines()[-25:])
        try:
            written = json.loads(Path(out).read_text())
            run.diagnoses, run.sites = written["diagnoses"], written.get("sites", [])
        except (OSError, ValueError, KeyError):
            pass
    return run


def run_field_gallery(keys=None, *, timeout: float = TIMEOUT, workers: int = 4, progress=None) -> list[FieldResult]:
    """Every case (or those named in ``keys``), both variants, ``workers`` processes at a time."""
    chosen = [case(k) for k in keys] if keys else list(CASES)

    def one(c: FieldCase) -> FieldResult:
        broken = run_case(c, "broken", timeout)
        fixed = run_case(c, "fixed", timeout) if broken.code != SKIP else Run("fixed", SKIP, tail=broken.tail)
        r = FieldResult(c.key, c.thread, c.stack, c.kind, c.call, c.line(), broken, fixed)
        if progress is not None:
            progress(r)
        return r

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, chosen))


@dataclass
class ReplayResult:
    """A replay hazard: the broken script's capture site must be flagged by the replay watch (``recapture``: the
    site table; ``stale_input``: a finding naming the tensor at the capture's line), the fixed one's not."""

    key: str
    thread: str
    line: int
    broken: Run
    fixed: Run
    kind: str = "recapture"
    call: str = ""

    def _flagged(self, run: Run) -> bool:
        return any(s.get("recaptures_every_replay") and str(s.get("site", "")).split(",", 1)[0].endswith(
            f"{self.key}.py:{self.line}") for s in run.sites)

    @property
    def skipped(self) -> str:
        return self.broken.skipped or self.fixed.skipped

    @property
    def caught(self) -> bool:
        if self.kind != "recapture":
            f = self.broken.first
            return f is not None and judge(f, self.kind, self.call, self.line, f"{self.key}.py")
        return self.broken.code == 0 and self._flagged(self.broken)

    @property
    def fix_works(self) -> bool:
        return self.fixed.code == 0 and not self._flagged(self.fixed) and bool(self.fixed.sites) and all(
            not d.get("findings") for d in self.fixed.diagnoses)

    @property
    def crashed(self) -> bool:
        return self.broken.crashed or self.fixed.crashed

    @property
    def hung(self) -> bool:
        return self.broken.timed_out or self.fixed.timed_out

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(skipped=self.skipped, caught=self.caught, fix_works=self.fix_works, crashed=self.crashed,
                 hung=self.hung)
        return d


@dataclass
class CleanResult:
    """A correct program under the doctor: it must exit 0 with no finding."""

    key: str
    run: Run

    @property
    def skipped(self) -> str:
        return self.run.skipped

    @property
    def findings(self) -> int:
        return sum(len(d.get("findings") or []) for d in self.run.diagnoses)

    @property
    def ok(self) -> bool:
        return self.run.code == 0 and self.findings == 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(skipped=self.skipped, findings=self.findings, ok=self.ok, crashed=self.run.crashed,
                 hung=self.run.timed_out)
        return d


def run_replay(keys=None, *, timeout: float = TIMEOUT, workers: int = 2) -> list[ReplayResult]:
    """Every replay hazard case (or those named in ``keys``), both variants."""
    def one(c: FieldCase) -> ReplayResult:
        broken = run_case(c, "broken", timeout)
        fixed = run_case(c, "fixed", timeout) if broken.code != SKIP else Run("fixed", SKIP, tail=broken.tail)
        return ReplayResult(c.key, c.thread, c.line("capture"), broken, fixed, c.kind, c.call)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, [case(k) for k in keys] if keys else REPLAY_CASES))


def run_clean(*, timeout: float = TIMEOUT, workers: int = 4) -> list[CleanResult]:
    """Every correct program of the gallery (CLEAN) under the doctor."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda k: CleanResult(k, run_case(k, "clean", timeout)), CLEAN))


def child_main(key: str, variant: str, out: str) -> int:
    """In the child: the case under the doctor; writes {"code", "diagnoses"} to ``out`` before the interpreter
    tears down (a crash at exit still leaves the diagnoses)."""
    from ..core.errors import NoDeviceError
    from ..graphs.doctor import run_explained
    from ..graphs.doctor import stacks as doctor_stacks
    from ..graphs.doctor import watch as doctor_watch
    from ..graphs.doctor.calls import treat_as_user_code

    script = HERE / f"{key}.py"
    if not script.is_file():
        raise SystemExit(f"no such case script: {script.name}")
    treat_as_user_code(str(script))
    os.chdir(HERE.parent.parent.parent)  # paths relative to the tree: cugraphlab/graphs/field_gallery/...
    argv = ["--fixed"] if variant == "fixed" else []
    replay = key in CLEAN or any(c.key == key for c in REPLAY_CASES)  # under the replay watch too
    try:
        code, diagnoses = run_explained(str(script), argv, replay=replay)
    except NoDeviceError as e:  # a cugraphlab case without a GPU: skipped, like a stack that is missing
        print(f"skip: no usable GPU: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
        code, diagnoses = SKIP, []
    sys.stdout.flush()
    # what the doctor found, in the graphs floor's own words (report.doctor renders the full text in the parent)
    print(f"cugraphlab doctor: {len(diagnoses)} capture(s)", *(d.summary() for d in diagnoses), sep="\n", flush=True)
    sites = doctor_stacks.site_stats(doctor_watch.LAST.events) if doctor_watch.LAST is not None else []
    Path(out).write_text(json.dumps({"code": code, "diagnoses": [d.to_dict() for d in diagnoses], "sites": sites},
                                    default=str))
    return code


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        sys.exit(child_main(sys.argv[2], sys.argv[3], sys.argv[4]))
    print("usage: python -m cugraphlab.experiment.doctor_gallery_field --child KEY broken|fixed OUT.json",
          file=sys.stderr)
    sys.exit(2)
