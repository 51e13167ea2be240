"""The field gallery's diagnoses without a GPU: every case's recorded call (the error text its stack raises at the
marked line) fed to the stack explainer must name the class, the call, the line of the case's file and a fix; the
stack watch on a fake PyTorch (its capture calls patched, a refused .item(), a thread, an exception that leaves the
capture open); the gallery's verdicts and counts; a case run in its own process skips with its reason here."""
from __future__ import annotations

import ast
import textwrap

import pytest

from cugraphlab.bench.doctor import field_counts
from cugraphlab.experiment.doctor_gallery_field import FieldResult, Run, judge, run_case
from cugraphlab.graphs.doctor import MISTAKES
from cugraphlab.graphs.doctor.stacks import (
    StackEvent,
    calls_on_line,
    classify_line,
    code_of,
    explain_events,
    site_stats,
)
from cugraphlab.graphs.field_gallery import CASES, case, marked_line, recorded
from cugraphlab.graphs.field_gallery._field import SKIP
from cugraphlab.report.doctor import (
    render_diagnosis,
    render_field,
    render_sites,
)

INVALIDATED = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"


@pytest.mark.parametrize("c", CASES, ids=[c.key for c in CASES])
def test_each_field_case_is_named_from_its_recorded_error(c):
    diagnoses = explain_events(recorded(c))
    with_findings = [d for d in diagnoses if d.findings]
    assert len(with_findings) == 1, [d.summary() for d in diagnoses]
    f = with_findings[0].first
    assert judge(f.to_dict(), c.kind, c.call, c.line("here"), c.script.name), f.to_dict()
    assert f.fix_hint or MISTAKES[f.kind].fix
    text = render_diagnosis(with_findings[0])
    assert f"{c.script.name}:{c.line('here')}" in text and MISTAKES[c.kind].title in text
    assert "fix:" in text


@pytest.mark.parametrize("c", CASES, ids=[c.key for c in CASES])
def test_each_case_script_cites_its_thread_and_marks_its_lines(c):
    source = c.script.read_text()
    ast.parse(source)
    doc = ast.get_docstring(ast.parse(source)) or ""
    repo, _, number = c.thread.partition("#")
    assert repo in doc and number in doc, f"{c.key}: its docstring must cite {c.thread}"
    assert marked_line(c.script, "here") > 0 and marked_line(c.script, "capture") > 0
    assert "fixed()" in source, "every case has its fixed twin (fixed() picks it)"
    assert MISTAKES[c.kind]


def test_the_gallery_covers_what_the_issue_asks():
    stacks = {c.stack for c in CASES}
    assert {"torch", "cupy", "cuda.core", "triton", "numba", "cugraphlab"} <= stacks
    assert len(CASES) >= 20
    kinds = {c.kind for c in CASES}
    assert {"sync", "allocation", "lazy_init", "rng", "legacy_stream", "query_or_thread", "open_capture",
            "host_callback", "multi_device"} <= kinds
    assert any(c.gpus == 2 for c in CASES) and any(not c.capture_thread for c in CASES)
    with pytest.raises(KeyError):
        case("no_such_case")


def test_codes_from_each_stacks_text():
    assert code_of("RuntimeError: CUDA error: operation not permitted when stream is capturing") == \
        "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"
    assert code_of("CUDARuntimeError: cudaErrorStreamCaptureImplicit: x") == "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"
    assert code_of("CUDAError: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: y") == INVALIDATED
    assert code_of("operation would make the legacy stream depend on a capturing blocking stream") == \
        "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"
    assert code_of("ValueError: nothing to do with CUDA") == ""


def test_calls_on_a_line_in_the_order_python_runs_them():
    assert calls_on_line("print(x.masked_select(m).sum().item())") == [
        "x.masked_select", "x.masked_select().sum", "x.masked_select().sum().item", "print"]
    assert calls_on_line('p = cgl.cu("cuMemAlloc", 1 << 20)') == ["cuMemAlloc"]
    assert calls_on_line("with torch.cuda.graph(g):") == ["torch.cuda.graph"]
    assert calls_on_line("this is not python (") == []
    assert classify_line("y = x + 1", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "torch")[1] == "legacy_stream"
    assert classify_line("y = x + 1", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "torch")[1] == "other"


def test_an_invalidated_answer_first_names_an_unseen_call():
    ev = [StackEvent("begin", "torch", "a.py", 3, "main", capture=1, stream="0x1", mode="global"),
          StackEvent("raise", "torch", "a.py", 5, "main", text=f"RuntimeError: {INVALIDATED}", code=INVALIDATED,
                     capture=1),
          StackEvent("end", "torch", "a.py", 3, "main", capture=1, ok=False, code=INVALIDATED)]
    f = explain_events(ev)[0].first
    assert f.kind == "foreign" and not f.seen and "a.py:5" in f.where


def test_a_clean_capture_has_no_finding_and_the_site_table_counts_replays():
    ev = [StackEvent("begin", "torch", "a.py", 3, "main", capture=1, call="9"),
          StackEvent("end", "torch", "a.py", 3, "main", capture=1, ok=True, seconds=0.002)]
    ev += [StackEvent("replay", "torch", "a.py", 8, "main", call="9") for _ in range(5)]
    (d,) = explain_events(ev)
    assert d.ok and d.findings == []
    (site,) = site_stats(ev)
    assert (site["captures"], site["replays"], site["recaptures_every_replay"]) == (1, 5, False)
    loop = []
    for i in range(6):  # a capture per iteration, each replayed once (pytorch #171672)
        loop += [StackEvent("begin", "torch", "b.py", 4, "step", capture=i + 1, call=str(100 + i)),
                 StackEvent("end", "torch", "b.py", 4, "step", capture=i + 1, ok=True, seconds=0.001),
                 StackEvent("replay", "torch", "b.py", 6, "step", call=str(100 + i))]
    (site,) = site_stats(loop)
    assert (site["captures"], site["replays"], site["recaptures_every_replay"]) == (6, 6, True)
    text = render_sites([site])
    assert "re-captured on every use" in text and "b.py:4" in text


# --- the stack watch on a fake PyTorch --------------------------------------------------------------------------
@pytest.fixture
def fake_torch(tmp_path, monkeypatch):
    from fake_field_stacks import FAKE_TORCH, install

    yield from install(tmp_path, FAKE_TORCH, monkeypatch)


def run_script(tmp_path, body: str, argv=()):
    from cugraphlab.graphs.doctor import run_explained

    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    return script, run_explained(str(script), list(argv))


def line_of(script, text: str) -> int:
    return next(i for i, ln in enumerate(script.read_text().splitlines(), 1) if text in ln)


def test_the_watch_names_item_inside_a_fake_torch_capture(fake_torch, capsys):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        g, t = torch.cuda.CUDAGraph(), torch.cuda.Tensor()
        with torch.cuda.graph(g):
            loss = t.item()
    ''')
    assert code == 1  # the script raised: its traceback printed, the doctor's frames left out
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    assert (f.kind, f.call) == ("sync", "t.item") and f.where.startswith(f"{script}:{line_of(script, 't.item()')}")
    assert not d.ok and "item()" in f.fix_hint and d.where.endswith(", in <module>")
    assert "torch.cuda.graph" not in capsys.readouterr().err.split("Traceback")[0]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_thread_refused_during_a_global_capture_is_named_with_its_thread(fake_torch):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import threading
        import torch
        def watchdog():
            torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            t = threading.Thread(target=watchdog, name="watchdog")
            t.start()
            t.join()
    ''')
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    assert f.kind == "query_or_thread" and f.thread == "watchdog"
    assert f.where.startswith(f"{script}:{line_of(script, 'torch.cuda.synchronize()')}")
    assert "thread_local" in f.fix_hint


def test_an_exception_that_leaves_a_capture_open_is_the_culprit(fake_torch):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        def step():
            raise ValueError("bad shape")
        g = torch.cuda.CUDAGraph()
        g.capture_begin()
        try:
            step()
            g.capture_end()
        except ValueError:
            pass
        torch.cuda.synchronize()
    ''')
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    assert f.kind == "open_capture" and f.where.startswith(f"{script}:{line_of(script, 'raise ValueError')}")
    assert "never ended" in d.end_result and "finally" in f.fix_hint
    assert any("operation not permitted" in later or "UNSUPPORTED" in later for later in d.later)


def test_a_clean_fake_capture_has_no_finding_and_the_patches_are_undone(fake_torch):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        for _ in range(3):
            g.replay()
    ''')
    assert code == 0 and len(diagnoses) == 1 and diagnoses[0].ok and diagnoses[0].findings == []
    import torch

    assert torch.cuda.graphs.CUDAGraph.capture_begin.__module__ == "torch.cuda.graphs"  # restored
    from cugraphlab.graphs.doctor import watch as doctor_watch

    (site,) = site_stats(doctor_watch.LAST.events)
    assert (site["captures"], site["replays"]) == (1, 3)


# --- verdicts, counts, the process per case ---------------------------------------------------------------------
def result(caught_right=True, fixed_code=0, broken_code=1, timed_out=False):
    c = case("torch_item")
    finding = {"kind": "sync", "call": "total.item" if caught_right else "print",
               "where": f"cugraphlab/graphs/field_gallery/torch_item.py:{c.line()}, in main"}
    broken = Run("broken", broken_code, timed_out, [{"findings": [finding]}], "Traceback ...")
    fixed = Run("fixed", fixed_code, False, [{"findings": []}], "x * 2: replay matches")
    return FieldResult(c.key, c.thread, c.stack, c.kind, c.call, c.line(), broken, fixed)


def test_verdicts_and_counts():
    good, wrong, crash = result(), result(caught_right=False), result(broken_code=-11)
    hang, bad_fix = result(timed_out=True), result(fixed_code=1)
    skipped = FieldResult("x", "t", "torch", "sync", "item", 1, Run("broken", SKIP, tail="skip: torch is not here"),
                          Run("fixed", SKIP))
    assert good.caught and good.fix_works and not good.crashed and not good.hung
    assert not wrong.caught and crash.crashed and hang.hung and not bad_fix.fix_works
    assert skipped.skipped == "torch is not here"
    rows = [r.to_dict() for r in (good, wrong, crash, hang, bad_fix, skipped)]
    n = field_counts(rows)
    assert n == {"cases": 6, "run": 5, "caught": 4, "fix_works": 4, "crashes": 1, "hangs": 1, "skipped": 1}
    text = render_field(rows)
    assert "caught 4/5" in text and "skipped: torch is not here" in text and "CRASH" in text and "HANG" in text


def test_a_case_runs_in_its_own_process_and_skips_with_its_reason_here():
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here: the skip path is not reachable")
    run = run_case(case("torch_item"), "broken", timeout=120)
    assert run.code == SKIP and "torch is not importable" in run.skipped and not run.crashed


def test_replay_and_clean_verdicts_and_their_text():
    from cugraphlab.experiment.doctor_gallery_field import CleanResult, ReplayResult
    from cugraphlab.report.doctor import render_replay_and_clean

    c = case("replay_recapture")
    line = c.line("capture")
    site = {"site": f"cugraphlab/graphs/field_gallery/replay_recapture.py:{line}, in main", "stack": "torch",
            "captures": 8, "ok": 8, "replays": 8, "capture_s": 0.008, "recaptures_every_replay": True}
    once = dict(site, captures=1, ok=1, capture_s=0.001, recaptures_every_replay=False)
    good = ReplayResult(c.key, c.thread, line, Run("broken", 0, sites=[site]), Run("fixed", 0, sites=[once]))
    missed = ReplayResult(c.key, c.thread, line, Run("broken", 0, sites=[once]), Run("fixed", 0, sites=[once]))
    assert good.caught and good.fix_works and not missed.caught
    clean = CleanResult("clean_torch_mlp", Run("clean", 0, diagnoses=[{"findings": []}]))
    dirty = CleanResult("clean_cupy_capture", Run("clean", 0, diagnoses=[{"findings": [{"kind": "sync"}]}]))
    assert clean.ok and not dirty.ok and dirty.findings == 1
    text = render_replay_and_clean([good.to_dict()], [clean.to_dict(), dirty.to_dict()], [result().to_dict()])
    assert "flagged in the mistake: yes, not in its fix: yes" in text and "re-captured on every use" in text
    assert "clean set: 3 correct programs run under the doctor (0 skipped), 1 finding(s), 1 not clean" in text


def test_the_clean_set_and_replay_cases_exist_and_are_marked():
    from cugraphlab.graphs.field_gallery import CLEAN, HERE, REPLAY_CASES

    assert len(CLEAN) >= 6 and len(CLEAN) + len(CASES) + len(REPLAY_CASES) >= 30
    for key in CLEAN:
        source = (HERE / f"{key}.py").read_text()
        ast.parse(source)
        assert marked_line(HERE / f"{key}.py", "capture") > 0
    for c in REPLAY_CASES:
        assert c.thread.split("#")[1] in c.script.read_text() and c.line("capture") > 0


def test_a_cugraphlab_case_without_a_gpu_skips_in_its_process():
    from cugraphlab.core.device import Device

    try:
        Device(0).close()
        pytest.skip("a GPU is usable here: the case would run")
    except Exception:  # no driver or no device: what CI has
        pass
    run = run_case("cgl_host_callback", "fixed", timeout=120)
    assert run.code == SKIP and run.skipped.startswith("no usable GPU") and not run.crashed


def test_the_record_of_a_field_run_renders_and_judges(monkeypatch):
    from cugraphlab.bench import doctor as bench_doctor
    from cugraphlab.experiment import doctor_gallery_field as runner

    monkeypatch.setattr(runner, "run_field_gallery", lambda **kw: [result(), result(caught_right=False)])
    monkeypatch.setattr(runner, "run_replay", lambda **kw: [])
    monkeypatch.setattr(runner, "run_clean", lambda **kw: [runner.CleanResult("clean_torch_mlp", Run("clean", 0))])
    record = bench_doctor.measure_doctor(gallery="field")
    d = record.to_dict()
    assert d["field_counts"] == {"cases": 2, "run": 2, "caught": 1, "fix_works": 2, "crashes": 0, "hangs": 0,
                                 "skipped": 0}
    assert not record.ok  # one case not caught
    from cugraphlab.report.doctor import render_doctor

    text = render_doctor(d)
    assert "caught 1/2" in text and "clean set:" in text
    monkeypatch.setattr(runner, "run_field_gallery", lambda **kw: [result()])
    assert bench_doctor.measure_doctor(gallery="field").ok
    with pytest.raises(Exception, match="ours, field or all"):
        bench_doctor.measure_doctor(gallery="theirs")


def test_gallery_all_runs_ours_then_the_field_gallery(monkeypatch):
    """"all" is both galleries in one record (our gallery's part stood in for: it needs a GPU)."""
    from cugraphlab.bench import doctor as bench_doctor
    from cugraphlab.experiment import doctor_gallery_field as runner

    seen = []

    def ours(device, samples, launches, overhead, modes, cupti, foreign):
        seen.append((device, samples, launches, overhead, cupti, foreign))
        return bench_doctor.DoctorResult(config={"device": device}, clocks={})

    monkeypatch.setattr(bench_doctor, "_run_ours", ours)
    monkeypatch.setattr(runner, "run_field_gallery", lambda **kw: [result()])
    monkeypatch.setattr(runner, "run_replay", lambda **kw: [])
    monkeypatch.setattr(runner, "run_clean", lambda **kw: [runner.CleanResult("clean_torch_mlp", Run("clean", 0))])
    record = bench_doctor.measure_doctor(3, samples=5, gallery="all")
    assert seen == [(3, 5, 64, True, False, None)]
    assert record.config["gallery"] == "all" and len(record.field_cases) == 1 and len(record.clean) == 1


def test_without_a_patched_capture_a_worker_threads_refusal_is_a_thread_mistake():
    ev = [StackEvent("raise", "cuda.core", "c.py", 12, "worker", text="CUDAError: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
                     code="CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", thread="worker", capture_thread=False,
                     source="buf = dev.allocate(1 << 20, stream=stream)"),
          StackEvent("raise", "cuda.core", "c.py", 30, "main", text=f"CUDAError: {INVALIDATED}", code=INVALIDATED,
                     source="graph = gb.end_building().complete()")]
    (d,) = explain_events(list(reversed(ev)))  # the consequence seen first: the refused call still wins
    assert (d.first.kind, d.first.call, d.first.where) == ("query_or_thread", "dev.allocate", "c.py:12, in worker")
    assert "thread_local" in d.first.fix_hint


def test_an_exception_that_ended_the_script_from_inside_a_capture_broke_it(fake_torch):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            raise KeyError("a library's own refusal, with no CUDA code in its text")
    ''')
    assert code == 1
    (d,) = [d for d in diagnoses if d.findings]
    assert d.first.where.startswith(f"{script}:{line_of(script, 'raise KeyError')}") and d.first.call == "KeyError"


def test_cugraphlab_doctor_replay_prints_the_site_table(fake_torch, capsys):
    from cugraphlab.cli import main

    script = fake_torch / "loop.py"
    script.write_text(textwrap.dedent('''
        import torch
        for step in range(5):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                pass
            g.replay()
    '''))
    assert main(["doctor", "--replay", str(script)]) == 0
    out = capsys.readouterr().out
    assert "replay watch" in out and f"{script}:5" in out and "re-captured on every use" in out
    assert main(["doctor", "--replay", "--gallery"]) == 2  # one line: --replay watches a script


def test_an_error_of_the_watch_never_reaches_the_script(fake_torch, monkeypatch):
    from cugraphlab.graphs.doctor.watch import StackWatch

    def broken(*a, **k):
        raise RuntimeError("the watch's own bug")

    monkeypatch.setattr(StackWatch, "_add", broken)
    _script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        g.replay()
    ''')
    assert code == 0 and diagnoses == []  # nothing recorded, nothing broken


def test_a_replay_after_the_captured_tensor_was_freed_is_named(fake_torch):
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        x, out = torch.Tensor(), torch.Tensor()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        g.replay()
        x = torch.Tensor()
        g.replay()
        g.replay()
    ''')
    assert code == 0
    (d,) = diagnoses
    assert d.ok and len(d.findings) == 1
    f = d.first
    assert (f.kind, f.call) == ("stale_input", "x") and f.where.startswith(f"{script}:{line_of(script, 'with torch')}")
    assert f"replay at {script}:{line_of(script, 'x = torch.Tensor()') + 1}" in f.detail and "x.copy_(new)" in f.fix_hint


@pytest.mark.parametrize("pool", [(1, 7), (0, 0)])
def test_a_freed_tensor_that_lives_in_a_graphs_private_pool_is_not_named(fake_torch, pool):
    """A tensor made inside an earlier capture (the capstone's ``t_out``) lives in that graph's private pool, which
    keeps its memory: dropped after a second capture, the second graph's replay reads nothing stale. The same
    tensor in the default pool (0, 0) is named as before."""
    script, (code, diagnoses) = run_script(fake_torch, f'''
        import torch
        out = torch.Tensor()
        ptr = out.data_ptr()
        torch.cuda.memory_snapshot = lambda: [{{"segment_pool_id": {pool!r}, "address": ptr - 16,
                                                "total_size": 4096}}]
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        del out
        g.replay()
    ''')
    assert code == 0
    (d,) = diagnoses
    kinds = [f.kind for f in d.findings]
    assert kinds == ([] if pool != (0, 0) else ["stale_input"])


def test_the_pool_is_asked_once_not_at_every_replay(fake_torch):
    """A freed tensor that a graph's pool keeps is forgotten after the first look: the allocator's snapshot (slow)
    is not taken again at every later replay."""
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        out = torch.Tensor()
        ptr = out.data_ptr()
        asked = []
        def snapshot():
            asked.append(1)
            return [{"segment_pool_id": (1, 7), "address": ptr - 16, "total_size": 4096}]
        torch.cuda.memory_snapshot = snapshot
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        del out
        for _ in range(5):
            g.replay()
        assert len(asked) == 1, asked
    ''')
    assert code == 0
    (d,) = diagnoses
    assert d.findings == []


def test_tensors_kept_alive_and_filled_in_place_are_not_named(fake_torch):
    _script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        x = torch.Tensor()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            pass
        for _ in range(3):
            y = torch.Tensor()
            g.replay()
    ''')
    assert code == 0 and [d.findings for d in diagnoses] == [[]]
