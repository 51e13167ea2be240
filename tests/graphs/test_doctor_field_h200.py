"""The field gallery's misses of its first H200 run (benchmarks/results/2026-12-04_H200_round9/
2026-12-04_H200_doctor_field_first.log), each reproduced without a GPU by what the stacks really did there
(tests/helpers/fake_field_stacks.py), and the doctor's text that names them now:

- a stack's Cython frames ("cuda/core/_utils/cuda_utils.pyx", relative) were taken for the user's file;
- CuPy refuses a D2H copy itself ("the current stream is capturing, so D2H transfers are disallowed"): the first
  finding is the synchronizing call, not the open capture it leaves;
- an event query whose answer CuPy swallows: the first call known to break captures between the capture's begin
  and the line that failed;
- the replay watch kept a loop's old CUDAGraph alive (Python's f_locals snapshot) and freed it inside the next
  capture (it invalidated it), and kept a rebound input tensor alive (its stale replay went unseen): both inside a
  function, where f_locals is a snapshot.
"""
from __future__ import annotations

import textwrap

import pytest

from cugraphlab.graphs.doctor import MISTAKES, run_explained
from cugraphlab.graphs.doctor.frames import _tb_site, is_user_file
from cugraphlab.graphs.doctor.stacks import StackEvent, explain_events, site_stats
from cugraphlab.report.doctor import render_diagnosis
from fake_field_stacks import FAKE_CUPY, FAKE_TORCH, cython_module, install


@pytest.fixture
def fake_torch(tmp_path, monkeypatch):
    yield from install(tmp_path, FAKE_TORCH, monkeypatch)


@pytest.fixture
def fake_cupy(tmp_path, monkeypatch):
    yield from install(tmp_path, FAKE_CUPY, monkeypatch)


def run_script(tmp_path, body: str, argv=()):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    return script, run_explained(str(script), list(argv))


def line_of(script, text: str) -> int:
    return next(i for i, ln in enumerate(script.read_text().splitlines(), 1) if text in ln)


# --- Cython frames are a stack's, never the user's ----------------------------------------------------------------
def test_a_cython_frame_is_never_the_users_line():
    assert not is_user_file("cuda/core/_utils/cuda_utils.pyx")
    assert not is_user_file("cupy_backends/cuda/api/runtime.pyx") and not is_user_file("cupy/_core/core.pxd")
    assert not is_user_file("cupy/_core/_routines.py") and not is_user_file("cuda/core/_memory/_buffer.py")
    assert is_user_file(__file__)
    lib = cython_module("fake_cuda_utils", '''
        class CUDAError(Exception):
            pass
        CUDAError.__module__ = "cuda.core._utils.cuda_utils"
        def allocate(n):
            raise CUDAError("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: This error indicates that the operation is "
                            "not permitted when the stream is capturing.")
    ''', "cuda/core/_utils/cuda_utils.pyx")
    try:
        lib.allocate(1)
    except Exception as e:
        file, line, fn = _tb_site(e.__traceback__)
    assert file.endswith("test_doctor_field_h200.py") and fn == "test_a_cython_frame_is_never_the_users_line"


def test_cuda_core_refusals_under_cython_frames_name_the_users_call(tmp_path, monkeypatch):
    """core_memory_resource, core_sync, core_thread_memory_resource: GraphBuilder (a cdef class) cannot be patched,
    so the doctor knows the capture only from the script's exceptions; their deepest user frame is the case's."""
    lib = cython_module("fake_core_device", '''
        class CUDAError(Exception):
            pass
        CUDAError.__module__ = "cuda.core._utils.cuda_utils"
        def refuse(*a, **k):
            raise CUDAError("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: This error indicates that the operation is "
                            "not permitted when the stream is capturing.")
        class Device:
            allocate = refuse
            sync = refuse
    ''', "cuda/core/_device.pyx")
    monkeypatch.setitem(__import__("sys").modules, "fake_core_device", lib)
    for call, kind in (("dev.allocate(4096, stream=gb)", "allocation"), ("dev.sync()", "sync")):
        script, (code, diagnoses) = run_script(tmp_path, f'''
            import fake_core_device
            def main():
                dev = fake_core_device.Device()
                gb = None
                x = {call}  # here
            main()
        ''')
        assert code == 1
        (d,) = [d for d in diagnoses if d.findings]
        f = d.first
        assert (f.kind, f.call) == (kind, call.split("(")[0]), f.to_dict()
        assert f.where.startswith(f"{script}:{line_of(script, '# here')}, in main")
        assert "cuda_utils.pyx" not in render_diagnosis(d).split("detail:")[0]


# --- CuPy's own refusal of a D2H copy ---------------------------------------------------------------------------------
@pytest.mark.parametrize("line", ["print(out.get())", "host = cupy.asnumpy(out)"])
def test_cupys_refused_d2h_copy_is_the_sync_call_not_the_open_capture(fake_cupy, line):
    script, (code, diagnoses) = run_script(fake_cupy, f'''
        import cupy
        def main():
            out = cupy.ndarray()
            s = cupy.cuda.Stream(non_blocking=True)
            with s:
                s.begin_capture()
                {line}  # here
                graph = s.end_capture()
        main()
    ''')
    assert code == 1
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    want = "get" if "get" in line else "asnumpy"
    assert f.kind == "sync" and f.call.endswith(want), f.to_dict()
    assert f.where.startswith(f"{script}:{line_of(script, '# here')}, in main")
    assert "D2H transfers are disallowed" in f.detail and "left the capture open" in f.detail
    text = render_diagnosis(d)
    assert MISTAKES["sync"].title in text and "synchronize" in f.fix_hint and "end_capture" in f.fix_hint


def test_a_swallowed_event_query_is_named_between_the_begin_and_the_failure(fake_cupy):
    """cupy_event_query: Event.done swallows the driver's refusal; end_capture says INVALIDATED from a Cython frame."""
    script, (code, diagnoses) = run_script(fake_cupy, '''
        import cupy
        def main():
            ev = cupy.cuda.Event()
            s = cupy.cuda.Stream(non_blocking=True)
            with s:
                s.begin_capture()
                y = len([1, 2])
                ev.record(s)
                finished = ev.done  # here
                print("finished:", finished)
                graph = s.end_capture()
        main()
    ''')
    assert code == 1
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    assert (f.kind, f.call) == ("query_or_thread", "ev.done"), (f.to_dict(), d.to_dict())
    assert f.where.startswith(f"{script}:{line_of(script, '# here')}, in main")
    assert "end_capture" in f.detail and ".done" in f.fix_hint and "ev.done" in render_diagnosis(d)


def test_the_line_scan_names_nothing_when_no_known_call_lies_between(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("def main():\n    s.begin_capture()\n    y = x + 1\n    s.end_capture()\n")
    ev = [StackEvent("begin", "cupy", str(script), 2, "main", capture=1, stream="0x1", mode="relaxed"),
          StackEvent("raise", "cupy", str(script), 4, "main", capture=1, code="CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
                     text="CUDARuntimeError: cudaErrorStreamCaptureInvalidated"),
          StackEvent("end", "cupy", str(script), 4, "main", capture=1, ok=False,
                     code="CUDA_ERROR_STREAM_CAPTURE_INVALIDATED")]
    (d,) = explain_events(ev)
    assert d.first.kind == "foreign" and f"{script}:4" in d.first.where


# --- the replay watch keeps nothing alive ------------------------------------------------------------------------------
def test_a_loop_that_recaptures_in_a_function_is_flagged_and_never_invalidated(fake_torch):
    """replay_recapture on the H200: the second capture failed (the watch's f_locals read freed the first graph
    inside it); every capture must succeed and the site be flagged."""
    script, (code, diagnoses) = run_script(fake_torch, '''
        import torch
        def main():
            x = torch.Tensor()
            g = None
            for step in range(6):
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):  # capture
                    pass
                g.replay()
        main()
    ''')
    assert code == 0, diagnoses
    assert all(d.ok and not d.findings for d in diagnoses) and len(diagnoses) == 6
    from cugraphlab.graphs.doctor import watch as doctor_watch

    (site,) = site_stats(doctor_watch.LAST.events)
    assert (site["captures"], site["ok"], site["replays"]) == (6, 6, 6) and site["recaptures_every_replay"]
    assert site["site"].startswith(f"{script}:{line_of(script, '# capture')}")
    import torch

    assert torch.cuda.graphs.state["destroyed"] >= 5


def test_a_rebound_input_inside_a_function_is_named_and_kept_alive_is_not(fake_torch):
    """replay_stale_input on the H200: in main() the watch's f_locals snapshot kept the captured tensor alive."""
    body = '''
        import torch
        def main():
            x, out = torch.Tensor(), torch.Tensor()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # capture
                pass
            for step in range(3):
                if FIXED:
                    y = torch.Tensor()
                else:
                    x = torch.Tensor()
                g.replay()  # replay
            print(x, out)
        main()
    '''
    script, (code, diagnoses) = run_script(fake_torch, body.replace("FIXED", "False"))
    assert code == 0
    (d,) = diagnoses
    assert d.ok and len(d.findings) == 1
    f = d.first
    assert (f.kind, f.call) == ("stale_input", "x")
    assert f.where.startswith(f"{script}:{line_of(script, '# capture')}")
    assert f"replay at {script}:{line_of(script, '# replay')}" in f.detail
    script, (code, diagnoses) = run_script(fake_torch, body.replace("FIXED", "True"))
    assert code == 0 and [d.findings for d in diagnoses] == [[]]


# --- cugraphlab's capture into a conditional body is explained -------------------------------------------------------
from switch_fixtures import own_kernels  # noqa: E402, F401


@pytest.fixture
def cond_driver(monkeypatch, own_kernels):  # noqa: F811
    from fake_field_stacks import doctor_conditional_driver

    yield doctor_conditional_driver(monkeypatch)


@pytest.mark.parametrize("explained", ["explain_all", "explain=True"])
def test_a_capture_into_a_body_is_explained_and_names_the_synchronize(cond_driver, explained):
    """cgl_conditional_body on the H200: the doctor saw no capture of cugraphlab's ("- - :-"); capture_into
    (cuStreamBeginCaptureToGraph) is now watched like graphs.capture."""
    import sys as _sys

    from cugraphlab import Device
    from cugraphlab.core.errors import CaptureError
    from cugraphlab.graphs import Graph, capture_into
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle
    from cugraphlab.graphs.doctor import explain_all

    with Device(0) as dev, dev.create_stream() as s:
        g = Graph(dev)
        _node, body = add_conditional_node(g, [], "IF", create_handle(g, dev.context, 1), dev.context)
        with explain_all() as diagnoses, pytest.raises(CaptureError) as info:
            kw = {"explain": True} if explained == "explain=True" else {}
            with capture_into(s, body, **kw):
                here = _sys._getframe().f_lineno + 1
                s.synchronize()
        if explained == "explain_all":
            (d,) = diagnoses
        else:
            d = info.value.diagnosis
        assert not d.ok and d.end_result == "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
        f = d.first
        assert (f.kind, f.call, f.result) == ("sync", "cuStreamSynchronize", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")
        assert f.where.endswith(f"test_doctor_field_h200.py:{here}, in " +
                                "test_a_capture_into_a_body_is_explained_and_names_the_synchronize")
        assert d.where.endswith(f"test_doctor_field_h200.py:{here - 2}, in " +
                                "test_a_capture_into_a_body_is_explained_and_names_the_synchronize")
        assert "a synchronizing call" in str(info.value)
        assert cond_driver.released[int(body)] == 1 and cond_driver.refused == []  # graphs.taken still applies
        assert g.closed


def test_a_clean_capture_into_a_body_is_explained_with_no_finding(cond_driver):
    from cugraphlab import Device
    from cugraphlab.graphs import Graph, capture_into
    from cugraphlab.graphs.conditional import add_conditional_node, create_handle
    from cugraphlab.graphs.doctor import explain_all

    with Device(0) as dev, dev.create_stream() as s:
        g = Graph(dev)
        _node, body = add_conditional_node(g, [], "IF", create_handle(g, dev.context, 1), dev.context)
        with explain_all() as diagnoses:
            with capture_into(s, body):
                pass
        (d,) = diagnoses
        assert d.ok and d.findings == [] and cond_driver.released[int(body)] == 0
        g.close()


def test_the_judge_takes_the_doors_driver_name_for_the_cases_call():
    from cugraphlab.experiment.doctor_gallery_field import judge
    from cugraphlab.graphs.field_gallery import case

    c = case("cgl_conditional_body")
    where = f"cugraphlab/graphs/field_gallery/{c.key}.py:{c.line()}, in main"
    assert judge({"kind": "sync", "call": "cuStreamSynchronize", "where": where}, c.kind, c.call, c.line(),
                 c.script.name)
    assert not judge({"kind": "sync", "call": "cuStreamQuery", "where": where}, c.kind, c.call, c.line(),
                     c.script.name)
    assert not judge({"kind": "sync", "call": "cuStreamSynchronize", "where": where.replace(f":{c.line()},", ":1,")},
                     c.kind, c.call, c.line(), c.script.name)


# --- numba-cuda broken against numpy: its cases skip with the reason ------------------------------------------------
def test_a_stack_broken_at_its_first_compile_skips_the_case_with_the_reason(capsys):
    from cugraphlab.experiment.doctor_gallery_field import Run
    from cugraphlab.graphs.field_gallery._field import SKIP, stack_works

    with pytest.raises(SystemExit) as info:
        with stack_works("numba-cuda"):
            raise AttributeError("module 'numpy' has no attribute 'row_stack'")
    assert info.value.code == SKIP
    out = capsys.readouterr().out
    assert Run("broken", SKIP, tail=out).skipped == \
        "numba-cuda is broken here (AttributeError: module 'numpy' has no attribute 'row_stack')"
    with pytest.raises(RuntimeError, match="CUDA_ERROR"):  # a CUDA error is the case's, never a skip
        with stack_works("numba-cuda"):
            raise RuntimeError("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")


@pytest.mark.parametrize("key", ["numba_copy_to_host", "numba_legacy_stream"])
def test_each_numba_case_compiles_inside_stack_works_before_its_capture(key):
    import ast

    from cugraphlab.graphs.field_gallery import case

    c = case(key)
    tree = ast.parse(c.script.read_text())
    (block,) = [n for n in ast.walk(tree) if isinstance(n, ast.With) and "stack_works" in ast.unparse(n.items[0])]
    inside = ast.unparse(block)
    assert "doubling(cuda, cupy)" in inside and "double[16, 256" in inside
    assert block.end_lineno < c.line("capture")


# --- the gallery's real CuPy cases, on a CuPy made of NumPy --------------------------------------------------------
@pytest.fixture
def numpy_cupy(tmp_path, monkeypatch):
    from fake_field_stacks import NUMPY_CUPY

    yield from install(tmp_path, NUMPY_CUPY, monkeypatch)


@pytest.mark.parametrize("key", ["cupy_get", "cupy_asnumpy", "cupy_event_query", "cupy_stream_sync"])
def test_the_cupy_cases_are_caught_and_their_twins_are_clean(numpy_cupy, key, capsys):
    """The case scripts themselves under run_explained, as the gallery's child runs them; judged by its judge."""
    from cugraphlab.experiment.doctor_gallery_field import judge
    from cugraphlab.graphs.doctor import calls as doctor_calls
    from cugraphlab.graphs.doctor.frames import is_user_file as user
    from cugraphlab.graphs.field_gallery import case

    c = case(key)
    doctor_calls.treat_as_user_code(str(c.script))
    try:
        code, diagnoses = run_explained(str(c.script), [])
        assert code == 1
        first = next(d for d in diagnoses if d.findings).first
        assert judge(first.to_dict(), c.kind, c.call, c.line(), c.script.name), first.to_dict()
        code, diagnoses = run_explained(str(c.script), ["--fixed"])
        assert code == 0 and [d.findings for d in diagnoses] == [[]]
        assert "bit for bit" in capsys.readouterr().out
    finally:
        doctor_calls._USER_CODE.discard(str(c.script.resolve()))
        doctor_calls._is_library.cache_clear()
        user.cache_clear()


# --- the gallery's real PyTorch replay hazards, on a PyTorch made of NumPy -------------------------------------------
@pytest.fixture
def numpy_torch(tmp_path, monkeypatch):
    from fake_field_stacks import NUMPY_TORCH

    yield from install(tmp_path, NUMPY_TORCH, monkeypatch)


@pytest.mark.parametrize("key", ["replay_recapture", "replay_stale_input"])
def test_the_torch_replay_hazards_are_flagged_and_their_twins_are_clean(numpy_torch, key, capsys):
    """The replay case scripts under run_explained(replay=True), as the gallery's child runs them, judged by
    ReplayResult: on the H200 neither was flagged (the watch's f_locals read broke the recapture loop and kept the
    rebound tensor alive)."""
    from cugraphlab.experiment.doctor_gallery_field import ReplayResult, Run
    from cugraphlab.graphs.doctor import calls as doctor_calls
    from cugraphlab.graphs.doctor import watch as doctor_watch
    from cugraphlab.graphs.doctor.frames import is_user_file as user
    from cugraphlab.graphs.field_gallery import case

    c = case(key)
    doctor_calls.treat_as_user_code(str(c.script))
    runs = {}
    try:
        for variant, argv in (("broken", []), ("fixed", ["--fixed"])):
            code, diagnoses = run_explained(str(c.script), argv, replay=True)
            sites = site_stats(doctor_watch.LAST.events)
            runs[variant] = Run(variant, code, diagnoses=[d.to_dict() for d in diagnoses], sites=sites)
    finally:
        doctor_calls._USER_CODE.discard(str(c.script.resolve()))
        doctor_calls._is_library.cache_clear()
        user.cache_clear()
    r = ReplayResult(c.key, c.thread, c.line("capture"), runs["broken"], runs["fixed"], c.kind, c.call)
    assert runs["broken"].code == 0 and runs["fixed"].code == 0, capsys.readouterr()
    assert r.caught, (runs["broken"].diagnoses, runs["broken"].sites)
    assert r.fix_works, (runs["fixed"].diagnoses, runs["fixed"].sites)
    if key == "replay_recapture":
        (site,) = runs["broken"].sites
        assert (site["captures"], site["ok"], site["replays"]) == (8, 8, 8)
    assert "bit for bit" in capsys.readouterr().out


@pytest.mark.parametrize("key", ["clean_torch_graph_per_shape", "clean_torch_recapture_after_resize"])
def test_the_torch_clean_programs_have_no_finding_and_no_flagged_site(numpy_torch, key, capsys):
    from cugraphlab.experiment.doctor_gallery_field import CleanResult, Run
    from cugraphlab.graphs.doctor import calls as doctor_calls
    from cugraphlab.graphs.doctor import watch as doctor_watch
    from cugraphlab.graphs.doctor.frames import is_user_file as user
    from cugraphlab.graphs.field_gallery import CLEAN, HERE, marked_line

    assert key in CLEAN
    script = HERE / f"{key}.py"
    doctor_calls.treat_as_user_code(str(script))
    try:
        code, diagnoses = run_explained(str(script), [], replay=True)
        sites = site_stats(doctor_watch.LAST.events)
    finally:
        doctor_calls._USER_CODE.discard(str(script.resolve()))
        doctor_calls._is_library.cache_clear()
        user.cache_clear()
    r = CleanResult(key, Run("clean", code, diagnoses=[d.to_dict() for d in diagnoses], sites=sites))
    assert r.ok, (code, r.findings, capsys.readouterr())
    (site,) = sites
    assert site["site"].split(",")[0].endswith(f"{key}.py:{marked_line(script, 'capture')}")
    assert not site["recaptures_every_replay"] and site["ok"] == site["captures"] >= 1
    assert site["replays"] >= 6 * site["captures"] and "bit for bit" in capsys.readouterr().out


def test_a_cugraphlab_capture_error_out_of_the_script_is_one_diagnosis_not_two(cond_driver, tmp_path):
    """cgl_conditional_body's shape under run_explained: the door names the synchronize; the same error, left to
    end the script, is not named a second time as a capture the doctor did not see begin."""
    script, (code, diagnoses) = run_script(tmp_path, '''
        import cugraphlab as cgl
        from cugraphlab.graphs import Graph, add_conditional_node, capture_into, create_handle
        def main():
            with cgl.Device(0) as dev, dev.create_stream() as s:
                g = Graph(dev)
                node, body = add_conditional_node(g, [], "IF", create_handle(g, dev.context, 1), dev.context)
                with capture_into(s, body):  # capture
                    s.synchronize()  # here
        main()
    ''')
    assert code == 1
    (d,) = [d for d in diagnoses if d.findings]
    f = d.first
    assert (f.kind, f.call) == ("sync", "cuStreamSynchronize")
    assert f.where.startswith(f"{script}:{line_of(script, '# here')}, in main")
    assert d.where.startswith(f"{script}:{line_of(script, '# capture')}, in main")


def test_a_stacks_own_refusal_without_a_cuda_code_is_classed_from_its_line_and_text(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("def main():\n    g.capture_begin()\n    y = x.to('cpu')\n    w = host.copy_(y)\n")
    for line, text, want in (
            (3, "RuntimeError: the current stream is capturing, so D2H transfers are disallowed", ("sync", "x.to")),
            (4, "RuntimeError: Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU "
                "tensor is pinned", ("host_copy", "host.copy_"))):
        ev = [StackEvent("begin", "torch", str(script), 2, "main", capture=1, stream="0x1", mode="global"),
              StackEvent("raise", "", str(script), line, "main", capture=1, text=text)]
        (d,) = explain_events(ev)  # never ended: left open by the refusal
        f = d.first
        assert (f.kind, f.call) == want and "refused the call itself" in f.detail and "left the capture open" in \
            f.detail and f.result == "(refused by torch)"
