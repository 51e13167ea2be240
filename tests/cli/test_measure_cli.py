"""``cugraphlab measure`` on the fake driver: every bad input of issue 25 section 3 is one line and exit 2 (a failed
capture: the doctor's diagnosis), and the good paths print the table and write a record diff can read."""
from __future__ import annotations

import json
import textwrap

import pytest

from fake_measure import install_measure_driver

STEP = '''
from cugraphlab.core._calls import cu

N = 256

def make(stream):
    return (stream.device.array(N),)

def step(stream, buf):
    cu("cuMemsetD32Async", buf.handle, 0, N, stream.handle)

def verify(buf):
    assert buf.n == N

def wrong(buf):
    assert buf.n == 1, "expected one element"

def raises(stream, buf):
    raise RuntimeError("kaboom")

def bad_setup(stream):
    return {}[1]

def elsewhere(stream, buf):
    other = stream.device.create_stream()
    cu("cuMemsetD32Async", buf.handle, 0, N, other.handle)

def syncs(stream, buf):
    step(stream, buf)
    stream.synchronize()

def bad_prepare(buf):
    raise ValueError("no fresh inputs")

NOT_A_FUNCTION = 3
'''

SAXPY = '''
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
'''

MIX = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void mix(__half* out, const __half* x, short s, unsigned char u, __half h, __nv_bfloat16 b,
                               signed char c, unsigned short w, unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = __hadd(x[i], h);
}
"""

CU_CHECK = '''
def check(inputs, outputs):
    assert set(inputs) == set(outputs) == {"out", "x", "y"}
'''


@pytest.fixture
def files(tmp_path, monkeypatch):
    install_measure_driver(monkeypatch)
    (tmp_path / "step.py").write_text(STEP)
    (tmp_path / "saxpy.cu").write_text(SAXPY)
    (tmp_path / "broken.cu").write_text(SAXPY.replace("a * x[i]", "a * z[i]"))
    (tmp_path / "cucheck.py").write_text(CU_CHECK)
    return tmp_path


def run(capsys, *argv):
    from cugraphlab.cli import main

    code = main(["measure", *map(str, argv), "--time-budget", "0.2"])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cugraphlab measure: ") and "Traceback" not in err
    return lines[0]


def test_a_python_function_is_measured_checked_and_written(files, capsys):
    out_json = files / "r.json"
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--check", "verify",
                         "--json", out_json)
    assert code == 0, err
    assert "cugraphlab measure: step(stream)" in out and "eager" in out and "passed" in out
    d = json.loads(out_json.read_text())
    assert d["kind"] == "cugraphlab.measure" and d["verified"] is True
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--compare-to", out_json)
    assert code == 0, err
    assert "SAME" in out or "AMBIGUOUS" in out


def test_a_failed_check_exits_1(files, capsys):
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--check", "wrong")
    assert code == 1 and "FAILED: expected one element" in out


def test_a_kernel_in_a_cu_file_is_measured_without_python(files, capsys):
    code, out, err = run(capsys, files / "saxpy.cu", "--kernel", "saxpy", "--size", "2^12", "--args",
                         "out,x,y,2.0,n", "--check", f"{files}/cucheck.py:check")
    assert code == 0, err
    assert "saxpy from saxpy.cu on 4,096 elements (grid 16 x 256)" in out
    assert "passed" in out and "floor" in out


@pytest.mark.parametrize("argv, expected", [
    (["{d}/missing.py:step"], "missing.py: no such file"),
    (["{d}/step.py:nope"], "has no function 'nope' (its functions: bad_prepare, bad_setup, elsewhere, make, raises, step"),
    (["{d}/step.py:NOT_A_FUNCTION"], "is a int, not a function"),
    (["{d}/step.py"], "expected path/to/file.py:function, package.module:function or a .cu file"),
    (["no_such_module_here:step"], "no module named 'no_such_module_here'"),
    (["{d}/step.py:raises", "--setup", "make"], "raises(stream) raised RuntimeError: kaboom (at step.py:"),
    (["{d}/step.py:step", "--setup", "bad_setup"], "setup raised KeyError: 1 (at step.py:"),
    (["{d}/step.py:elsewhere", "--setup", "make"], "enqueued nothing on the stream it was given"),
    (["{d}/step.py:step", "--setup", "make", "--ways", "eager,warp"], "unknown way 'warp'"),
    (["{d}/step.py:step", "--kernel", "saxpy"], "--kernel is for a kernel in a .cu file"),
    (["{d}/step.py:step", "--compare-to", "{d}/nothing.json"], "nothing.json: no such file"),
    (["{d}/missing.cu", "--args", "x"], "missing.cu: no such file"),
    (["{d}/broken.cu", "--args", "out,x,y,2.0,n"], "broken.cu: does not compile: "),
    (["{d}/saxpy.cu", "--kernel", "saxpy"], "saxpy(float* out, const float* x, const float* y, float a, "
                                            "unsigned long long n): give one --args item per parameter, e.g. "
                                            "--args out,x,y,1.0,n"),
    (["{d}/saxpy.cu", "--args", "out,x,y,2.0"], "takes 5 arguments, --args gave 4"),
    (["{d}/saxpy.cu", "--args", "out,x,y,n,n"], "n is the element count, and 'float a' is not an integer"),
    (["{d}/saxpy.cu", "--args", "out,x,3,2.0,n"], "a pointer takes a buffer name"),
    (["{d}/saxpy.cu", "--kernel", "saxpi", "--args", "x"], "has no kernel 'saxpi'; its kernels: saxpy"),
    (["{d}/saxpy.cu", "--setup", "make"], "--setup is for a Python function"),
    (["{d}/step.py:step", "--setup", "make", "--fail-on", "slower"], "--fail-on judges a comparison: give "
                                                                     "--compare-to OLD.json with it"),
    (["{d}/step.py:step", "--setup", "make", "--threshold", "3%"], "--threshold judges a comparison"),
    (["{d}/step.py:step", "--setup", "make", "--l2", "cold"], "l2='cold' is replaced: every way now has a cold row"),
    (["{d}/step.py:step", "--setup", "make", "--check", "verify", "--prepare", "bad_prepare"],
     "prepare raised ValueError: no fresh inputs (at step.py:"),
    (["{d}/step.py:step", "--setup", "make", "--prepare", "bad_prepare"],  # no check: it still runs, first
     "prepare raised ValueError: no fresh inputs (at step.py:"),
])
def test_bad_input_is_one_line_and_exit_2(files, capsys, argv, expected):
    code, out, err = run(capsys, *[a.format(d=files) for a in argv])
    assert code == 2, (out, err)
    assert expected in one_line(err)


def test_a_capture_that_fails_prints_the_timings_and_the_doctors_diagnosis_and_exits_2(files, capsys):
    code, out, err = run(capsys, f"{files}/step.py:syncs", "--setup", "make")
    assert code == 2 and err == ""
    assert "graph: the capture failed" in out and "a synchronizing call inside the capture" in out
    assert "cuStreamSynchronize" in out and "step.py" in out and "fix: Move the wait out" in out
    assert "Traceback" not in out


def test_the_help_says_how_to_name_the_work(capsys):
    from cugraphlab.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["measure", "--help"])
    out = capsys.readouterr().out
    for text in ("path/to/file.py:function", "saxpy.cu --kernel saxpy --size 2^20 --args out,x,y,2.0,n",
                 "--compare-to old.json --fail-on slower", "exit: 0 measured"):
        assert text in textwrap.dedent(out)


def test_processes_without_a_gpu_say_so_in_one_line(files, capsys):
    import ctypes

    try:  # the workers are fresh processes: they talk to the real driver, not to this test's fake
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("a driver is here: the workers would measure")
    except OSError:
        pass
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--processes", "2")
    assert code == 2 and "no usable GPU" in one_line(err)


@pytest.mark.parametrize("content, expected", [
    ("[1, 2, 3]", "a JSON list, not a record"),
    ('{"kind": "cugraphlab.run", "schema": 1}', "a record of kind 'cugraphlab.run', not 'cugraphlab.measure'"),
])
def test_compare_to_a_record_of_another_kind_is_refused_before_measuring(files, capsys, content, expected):
    old = files / "old.json"
    old.write_text(content)
    new = files / "new.json"
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--compare-to", old, "--json", new)
    assert code == 2 and expected in one_line(err)
    assert out == "" and not new.exists()  # nothing measured, nothing half-written


def test_the_json_record_is_written_before_the_comparison(files, capsys, monkeypatch):
    old, new = files / "old.json", files / "new.json"
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--json", old)
    assert code == 0, err

    def broken(*a, **k):
        raise RuntimeError("the comparison broke")

    monkeypatch.setattr("cugraphlab.bench.diff.diff_records", broken)
    with pytest.raises(RuntimeError):
        run(capsys, f"{files}/step.py:step", "--setup", "make", "--json", new, "--compare-to", old)
    assert json.loads(new.read_text())["kind"] == "cugraphlab.measure"


def test_a_function_that_synchronises_has_no_held_figure_and_says_why(files, capsys):
    code, out, err = run(capsys, f"{files}/step.py:syncs", "--setup", "make", "--ways", "eager")
    assert code == 0, err
    assert "eager: held: n/a: the work synchronises" in out
    assert "How long does my work run on the GPU? held" not in out  # no way has a held figure to point at
    assert "What does a call cost my thread? host." in out


def test_compare_to_judges_the_repeatable_rows_unless_judge_all(files, capsys):
    old = files / "old.json"
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--json", old)
    assert code == 0, err
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--compare-to", old)
    assert code in (0, 1), err
    assert "(not judged)" in out and "host rows move 30-40% between processes" in out
    assert "eager: host / reference" in out
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--compare-to", old, "--judge", "all")
    assert code in (0, 1), err
    assert "(not judged)" not in out
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--compare-to", old, "--judge", "x")
    assert code == 2 and "--judge" in err


def test_a_half_kernel_with_small_integer_scalars_is_measured(files, capsys):
    (files / "mix.cu").write_text(MIX)  # includes <cuda_fp16.h> and <cuda_bf16.h>: found beside NVRTC
    code, out, err = run(capsys, files / "mix.cu", "--size", "2^10", "--args", "out,x,-3,200,0.5,1.5,-7,65535,n",
                         "--ways", "eager")
    if code == 2 and 'could not open source file "cuda_fp16.h"' in err:  # cu12: no header wheel of NVRTC's major
        pytest.skip("no CUDA fp16 headers for this NVRTC here (the cu12 extra installs none)")
    assert code == 0, err
    assert "mix from mix.cu on 1,024 elements" in out


def test_judge_without_compare_to_is_refused_in_one_line(files, capsys):
    code, out, err = run(capsys, f"{files}/step.py:step", "--setup", "make", "--judge", "all")
    assert code == 2 and "--judge judges a comparison: give --compare-to OLD.json with it" in one_line(err)
