"""One convention for the bench face (bench/__init__'s docstring): ``measure_*`` take ``device`` first, then ``size=``
and ``iters=``. The older keywords still work with a DeprecationWarning naming the new one, both at once is
one InvalidArgumentError, and the new names reach the function unchanged. No GPU: a recording stand-in is wrapped."""
from __future__ import annotations

import inspect
import warnings

import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.renamed import renamed_kwargs


@renamed_kwargs(n="size", iterations="iters")
def _work(device, *, size=1, iters=2):
    """Stand-in for a measure_* function."""
    return device, size, iters


def test_new_names_pass_through_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _work(3, size=1024, iters=7) == (3, 1024, 7)


@pytest.mark.parametrize("old, new, value", [("n", "size", 4096), ("iterations", "iters", 11)])
def test_an_old_keyword_warns_naming_the_new_one_and_works(old, new, value):
    with pytest.warns(DeprecationWarning, match=rf"_work\({old}=\.\.\.\) is now _work\({new}=\.\.\.\)"):
        got = _work(0, **{old: value})
    assert got[1 if new == "size" else 2] == value


def test_old_and_new_together_is_one_clear_error():
    with pytest.raises(InvalidArgumentError, match="got n= and size=: n= is the old name of size="):
        _work(0, n=1, size=2)


def test_the_wrapper_keeps_name_doc_and_signature():
    assert _work.__name__ == "_work" and "Stand-in" in _work.__doc__
    assert list(inspect.signature(_work).parameters) == ["device", "size", "iters"]
    assert _work.__renamed__ == {"n": "size", "iterations": "iters"}


def _public_measures():
    import cugraphlab.bench as bench

    return {name: getattr(bench, name) for name in bench.__all__ if name.startswith("measure_")}


def test_every_public_measure_takes_device_first_and_the_shared_names():
    """device first; where a count of floats or iterations is taken, it is called size/sizes and iters (or a
    name of its own meaning: repeats, launches, samples), never n, iterations or device_index."""
    measures = _public_measures()
    assert {"measure_latency", "measure_timeline", "measure_while", "measure_devlaunch", "measure_scaling"} <= set(
        measures)
    for name, fn in measures.items():
        params = list(inspect.signature(fn).parameters)
        # measure_update_costs measures a Chain the caller built (its device is the chain's): its first argument
        # is that chain, as measure_update(device, ops, size) is the same with the chain built for you
        assert params[0] == ("chain" if name == "measure_update_costs" else "device"), (name, params)
        assert not {"n", "iterations", "device_index"} & set(params), (name, params)


@pytest.mark.parametrize("name, old", [("measure_latency", {"n": 1024}), ("measure_timeline", {"n": 1024}),
                                       ("measure_while", {"iterations": 10}), ("measure_devlaunch", {"iterations": 10})])
def test_the_real_functions_accept_their_old_keyword_with_a_warning(name, old):
    """Both keywords at once is refused before any GPU work, whichever function."""
    import cugraphlab.bench as bench

    fn = getattr(bench, name)
    (key, value), = old.items()
    new = fn.__renamed__[key]
    with pytest.raises(InvalidArgumentError, match=f"{key}= is the old name of {new}="):
        fn(0, **{key: value, new: value})


#: old name -> (module, new name): the bench face's functions renamed for one verb (CHANGELOG.md)
RENAMED = {
    "record_timeline": ("cugraphlab.bench.measure.timeline", "measure_timeline"),
    "run_experiment": ("cugraphlab.bench.run", "measure_run"),
    "run_sweep": ("cugraphlab.bench.measure.sweep", "measure_sweep"),
    "run_doctor": ("cugraphlab.bench.doctor", "measure_doctor"),
}


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_an_old_name_warns_naming_the_new_one_and_returns_what_it_returns(monkeypatch, old):
    """The old name calls the new one with the same arguments (a recording stand-in put in its place) and hands
    back exactly what it returned, after a DeprecationWarning that names the new function."""
    import importlib

    module_name, new = RENAMED[old]
    module = importlib.import_module(module_name)
    token = object()
    seen = []

    def stand_in(*args, **kwargs):
        seen.append((args, kwargs))
        return token

    monkeypatch.setattr(module, new, stand_in)
    kwargs = {"device": 2, "size": 64} if old == "run_experiment" else {"size": 64}
    args = () if old == "run_experiment" else (2,)
    with pytest.warns(DeprecationWarning, match=rf"^{old} is now {new} \(the same arguments\); {old} will be removed"):
        got = getattr(module, old)(*args, **kwargs)
    assert got is token
    assert seen == [(args, kwargs)]


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_the_old_and_new_names_are_both_on_the_bench_face(old):
    import cugraphlab.bench as bench

    module_name, new = RENAMED[old]
    assert {old, new} <= set(bench.__all__)
    assert getattr(bench, new).__module__ == module_name and getattr(bench, old).__module__ == module_name
    assert list(inspect.signature(getattr(bench, new)).parameters)[0] == "device"


def test_the_renamed_run_refuses_bad_input_the_same_under_both_names():
    """No GPU: the run's checks come before the device is opened, and the old name reaches them too."""
    from cugraphlab.bench.run import measure_run, run_experiment

    with pytest.raises(InvalidArgumentError, match="multiple of unroll"):
        measure_run(0, iters=7, unroll=2)
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidArgumentError, match="multiple of unroll"):
        run_experiment(iters=7, unroll=2)


def test_measure_timeline_refuses_an_unknown_mode_before_any_gpu_work():
    from cugraphlab.bench import measure_timeline

    with pytest.raises(InvalidArgumentError, match="unknown timeline mode 'graphs'; modes: eager, graph, graph"):
        measure_timeline(None, modes=("eager", "graphs"))


#: Public functions of cugraphlab.bench that take a device but are not a measure_*: each says why.
NOT_MEASURES = {
    "collect": "describes the environment a record ran on (records.environment), measures nothing",
    "system_info": "the same description for `cugraphlab info` (its device is an ordinal)",
    "copy_bandwidth": "the copy roof, a probe every measure_* may use; its name says what it returns",
    **{old: f"deprecated alias of {new}" for old, (_, new) in RENAMED.items()},
}


def test_every_public_function_that_takes_a_device_is_a_measure():
    import cugraphlab.bench as bench

    takers = set()
    for name in bench.__all__:
        obj = getattr(bench, name)
        if not inspect.isfunction(obj):
            continue
        params = inspect.signature(obj).parameters
        if {"device", "ordinal", "device_index"} & set(params) or name in RENAMED:
            takers.add(name)
    assert {"measure_run", "measure_sweep", "measure_doctor", "measure_timeline"} <= takers
    wrong = sorted(n for n in takers if not n.startswith("measure_") and n not in NOT_MEASURES)
    assert not wrong, f"take a device but are not measure_*: {wrong}"
    stale = sorted(n for n in NOT_MEASURES if n not in takers)
    assert not stale, f"listed as exceptions but take no device (delete them): {stale}"


def test_measure_paired_takes_device_and_warns_on_device_index():
    from cugraphlab.bench.paired.harness import measure_paired

    assert list(inspect.signature(measure_paired).parameters)[0] == "device"
    with pytest.raises(InvalidArgumentError, match="device= only"):
        measure_paired(device_index=0, device=0)
