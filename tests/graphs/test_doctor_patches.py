"""The stack watch's patches of CuPy's Stream.begin_capture / end_capture and cuda.core's GraphBuilder
begin_building / end_building, on fake modules: the begin and end are recorded at the user's lines, an end that
raises is recorded with its error and the exception still reaches the script, and every patch is undone. No GPU."""
from __future__ import annotations

import pathlib
import sys
import textwrap

import pytest

FAKES = {
    "cupy/__init__.py": "from . import cuda\n",
    "cupy/cuda/__init__.py": textwrap.dedent('''
        class Stream:
            ptr = 0x7000
            def __init__(self, non_blocking=False):
                self.fail = False
            def begin_capture(self, mode=None):
                self.mode = mode
            def end_capture(self):
                if self.fail:
                    raise RuntimeError("cudaErrorStreamCaptureInvalidated: operation failed due to a previous error")
                return "graph"
    '''),
}


class _S:
    handle = 0x7100


class GraphBuilder:
    """cuda.core's GraphBuilder, as far as the watch patches it."""

    stream = _S()

    def begin_building(self, mode="relaxed"):
        return self

    def end_building(self):
        return "built"


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    from cugraphlab.graphs.doctor.cupti import treat_as_library

    for rel, text in FAKES.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        treat_as_library(str(p))
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("cupy",)
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] in names}
    for k in saved:
        del sys.modules[k]
    yield tmp_path
    for k in [k for k in sys.modules if k.split(".")[0] in names]:
        del sys.modules[k]
    sys.modules.update(saved)


def run(tmp_path, body: str):
    from cugraphlab.graphs.doctor import run_explained
    from cugraphlab.graphs.doctor import watch as doctor_watch

    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    code, diagnoses = run_explained(str(script), [])
    lines = script.read_text().splitlines()
    return code, diagnoses, doctor_watch.LAST.events, lambda text: next(i for i, ln in enumerate(lines, 1)
                                                                        if text in ln)


def test_cupy_captures_are_recorded_at_the_users_lines_and_the_patches_undone(fakes):
    code, diagnoses, events, line = run(fakes, '''
        import cupy
        s = cupy.cuda.Stream(non_blocking=True)
        s.begin_capture()
        g = s.end_capture()  # cupy end
        assert g == "graph"
    ''')
    assert code == 0 and len(diagnoses) == 1 and diagnoses[0].ok and not diagnoses[0].findings
    (end,) = [e for e in events if e.kind == "end"]
    assert end.ok and end.stack == "cupy" and end.line == line("# cupy end")
    (begin,) = [e for e in events if e.kind == "begin"]
    assert (begin.stream, begin.mode) == ("0x7000", "relaxed")
    import cupy

    assert cupy.cuda.Stream.end_capture.__module__ == "cupy.cuda"  # restored


def test_a_cuda_core_build_is_recorded_at_the_users_lines_and_the_patch_undone():
    import types

    from cugraphlab.graphs.doctor.watch import watching_stacks

    module = types.SimpleNamespace(GraphBuilder=GraphBuilder)
    with watching_stacks() as w:
        w.patch_cuda_core(module)
        b = GraphBuilder()
        b.begin_building("thread_local")  # core begin
        assert b.end_building() == "built"  # core end
    lines = pathlib.Path(__file__).read_text().splitlines()
    at = {t: next(i for i, ln in enumerate(lines, 1) if ln.rstrip().endswith(t)) for t in ("# core begin", "# core end")}
    (begin,) = [e for e in w.events if e.kind == "begin"]
    (end,) = [e for e in w.events if e.kind == "end"]
    assert (begin.stack, begin.stream, begin.mode, begin.line) == ("cuda.core", "0x7100", "thread_local",
                                                                   at["# core begin"])
    assert end.ok and end.line == at["# core end"]
    assert GraphBuilder.end_building.__qualname__ == "GraphBuilder.end_building"  # restored


def test_an_end_that_raises_is_recorded_with_its_error_and_still_raises(fakes):
    code, diagnoses, events, line = run(fakes, '''
        import cupy
        s = cupy.cuda.Stream(non_blocking=True)
        s.begin_capture()
        s.fail = True
        try:
            s.end_capture()  # cupy end
        except RuntimeError as e:
            print("the script saw", e)
    ''')
    (end,) = [e for e in events if e.kind == "end"]
    assert not end.ok and end.code == "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED" and end.line == line("# cupy end")
    (d,) = diagnoses
    assert not d.ok and d.stack == "cupy"
