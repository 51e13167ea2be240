"""The loops ``measure`` drives a user's calls with (``bench.measure.way.repeat_calls``): every call made, in
order, with its arguments, whatever loop is chosen; Python code gets the Python loop, a builtin the C loop."""
from __future__ import annotations

import functools

import pytest

from cugraphlab.bench.measure.way import is_python_code, repeat_calls


class _Obj:
    def method(self, *a):
        self.seen.append(a)


def _plain(*a):
    _plain.seen.append(a)


@pytest.mark.parametrize("args", [(), ("s",), ("s", 1), ("s", 1, 2.5), ("s", 1, 2.5, "x"), ("s", 1, 2.5, "x", None)])
def test_a_python_function_is_called_n_times_with_its_arguments(args):
    _plain.seen = []
    run = repeat_calls((_plain,), args)
    run(7)
    assert _plain.seen == [args] * 7
    run(0)
    assert len(_plain.seen) == 7


def test_a_bound_method_and_a_builtin_are_called_n_times():
    o = _Obj()
    o.seen = []
    repeat_calls((o.method,), ("s",))(5)
    assert o.seen == [("s",)] * 5
    out = []
    repeat_calls((out.append,), ("v",))(4)  # a builtin: the C loop
    assert out == ["v"] * 4


def test_several_functions_are_called_in_order_each_round():
    seen = []
    fns = (lambda: seen.append("a"), lambda: seen.append("b"), lambda: seen.append("c"))
    repeat_calls(fns)(3)
    assert seen == ["a", "b", "c"] * 3
    with pytest.raises(ValueError):
        repeat_calls(fns, ("s",))


def test_python_code_is_told_from_builtins_and_partials():
    assert is_python_code(_plain) and is_python_code(_Obj().method) and is_python_code(lambda: None)
    assert not is_python_code([].append) and not is_python_code(len)
    assert not is_python_code(functools.partial(_plain, 1)) and not is_python_code(_Obj)
