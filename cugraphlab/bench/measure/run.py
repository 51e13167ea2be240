"""How ``measure`` runs in this process (``measure_here``; ``measure_part`` is one process's raw outcome, which
``result.build_result`` turns into the record; ``processes`` runs it in N processes), in order:

    place       the device and the stream (a launch and a graph bring theirs; a callable gets a stream made
                here, in the view ``stream=`` asks for, or the stream object it was given)
    setup       once; its state goes to the work, prepare and check (``target`` module docstring)
    prepare     once, before anything runs (fresh inputs; one that raises stops here with WorkRaised)
    warm        a callable is called twice (a function that raises stops here, in one line), then captured once
                through the doctor: a capture holding no node means it ignored the stream (StreamIgnoredError)
    ways        built (``work``): eager, graph (captured through the doctor), native, floor
    sample      rounds of every way in turn (``sampler``)
    check       per way: prepare, one call of that way, synchronize, check
    close       ways, then what was made here (streams, the device)
"""
from __future__ import annotations

from typing import Any, Callable

from ...core.errors import InvalidArgumentError
from .options import MeasureOptions
from .target import call_setup, load_target, run_check
from .way import REFERENCES, WAYS, call_user
from .work import CallableWork, as_work

__all__ = ["measure_here", "measure_part", "sampling_of"]


_ENV: dict = {}


def _environment(dev) -> dict:
    """``records.environment.collect(dev)``, once per device and process (it asks git and nvidia-smi, which take
    a good part of a second; a worker measuring many tests asks once), with this measurement's timestamp."""
    import datetime

    from ...core._calls import driver_module
    from ..records.environment import collect

    key = (id(driver_module()), getattr(dev, "ordinal", None))  # a test's fake driver is not the GPU
    if key not in _ENV:
        _ENV[key] = collect(dev) if dev is not None else collect()
    env = dict(_ENV[key])
    env["timestamp"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return env


def _resolve(fn, what: str):
    return load_target(fn, what) if isinstance(fn, str) else fn


def _place(work, device, stream, owned: list):
    """(work, device, timing stream, the view a callable gets, kind name) for ``work``: launches prepared without
    a stream are bound here (``Launch.on``) to the stream given, or to one made here."""
    from ...core.device import Device
    from ...core.launch import Launch
    from ...graphs.exec import Graph, GraphExec
    from .streams import borrow, kind_of, view_for

    launches = work if isinstance(work, (list, tuple)) else (work,)
    if launches and all(isinstance(w, Launch) for w in launches):
        if all(l.stream is not None for l in launches):
            s = launches[0].stream
            if stream is not None and stream is not s:
                raise InvalidArgumentError("a Launch bound to a stream is timed on it: leave stream= out (or "
                                           "prepare it without a stream)")
            return work, getattr(s, "device", None), s, None, "cugraphlab"
        if any(l.stream is not None for l in launches):
            raise InvalidArgumentError("some launches are bound to a stream and some are not: bind them all")
        dev = launches[0].kernel.module.device
    elif isinstance(work, (Graph, GraphExec)):
        dev = work.device
    elif isinstance(device, Device):
        dev = device
    elif getattr(stream, "device", None) is not None and hasattr(stream, "handle"):
        dev = stream.device
    else:
        ordinal = 0 if device is None else device
        if isinstance(ordinal, bool) or not isinstance(ordinal, int):
            raise InvalidArgumentError(f"device must be a Device or an ordinal, got {device!r}")
        dev = Device(ordinal)
        owned.append(dev)
    if stream is None or isinstance(stream, str):
        kind = stream or "cugraphlab"
        s = dev.create_stream()
        owned.append(s)
        view = view_for(kind, s)
    else:
        s, view, kind = borrow(stream, dev), stream, kind_of(stream)
        if s is not stream:
            owned.append(s)  # the wrapper lets go of the other library's stream; nothing is destroyed
    if launches and all(isinstance(w, Launch) for w in launches):
        bound = [l.on(s) for l in launches]
        return (bound[0] if isinstance(work, Launch) else bound), dev, s, None, "cugraphlab"
    return work, dev, s, view, kind


def _choose(work, ways) -> tuple[str, ...]:
    if ways is None:
        return work.ways
    unknown = [w for w in ways if w not in WAYS]
    if unknown:
        raise InvalidArgumentError(f"unknown way {unknown[0]!r}; ways: {', '.join(WAYS)}")
    cannot = [w for w in ways if w not in work.ways]
    if cannot:
        raise InvalidArgumentError(f"{work.describe()} cannot be run as {cannot[0]!r}; its ways: "
                                   f"{', '.join(work.ways)}")
    if not ways:
        raise InvalidArgumentError("ways is empty: name at least one of " + ", ".join(work.ways))
    return tuple(ways)


def _checks(runnable, check, prepare, args, kwargs, stream) -> dict:
    """Per way (not the references): prepare, one call of that way, synchronize, check."""
    checks: dict = {}
    if check is None:
        return checks
    for b in runnable:
        if b.name in REFERENCES:
            continue
        if prepare is not None:
            call_user("prepare", prepare, *args, **kwargs)
        b.run(1)
        stream.synchronize()
        checks[b.name] = run_check(check, args, kwargs)
    return checks


def measure_part(work, *, setup=None, check=None, prepare=None, stream=None, device=None, options,
                 progress: Callable[[str], None] | None = None,
                 describe: str | None = None) -> tuple[dict, Any, dict]:
    """Measure ``work`` in this process: (its raw part, the Device, the config) (module docstring). ``options``:
    a MeasureOptions or a dict of its fields (checked here, before anything runs)."""
    from .sampler import sample_ways

    options = MeasureOptions.coerce(options)
    owned: list = []
    built: list = []
    w = args = kwargs = None
    try:
        work, dev, timing_stream, view, kind = _place(work, device, stream, owned)
        setup, check, prepare = (_resolve(f, what) for f, what in ((setup, "setup"), (check, "check"),
                                                                     (prepare, "prepare")))
        args, kwargs = call_setup(setup, view if view is not None else timing_stream)
        if prepare is not None:  # once before anything runs: a prepare that raises stops here, like setup
            call_user("prepare", prepare, *args, **kwargs)
        w = as_work(work, timing_stream, view, args, kwargs)
        chosen = _choose(w, options.ways)
        mode = options.capture_mode
        if isinstance(w, CallableWork):
            label = f"{w.name}(stream)"
            for _ in range(2):
                call_user(label, w.call_once)
            timing_stream.synchronize()
            if "graph" not in chosen:
                w.check_stream(mode=mode)
        for name in chosen:
            built.append(w.build(name, mode=mode))
        if options.reference:
            from .way import graph_reference_way, reference_way

            built.append(reference_way(dev, timing_stream))
            if any(b.name == "graph" and b.run is not None for b in built):
                built.append(graph_reference_way(dev, timing_stream))
        runnable = [b for b in built if b.run is not None]
        samples = call_user("the work, in the timed loops,", sample_ways, runnable, dev, timing_stream,
                            calls=options.calls, min_samples=options.min_samples,
                            max_samples=options.max_samples, target_spread=options.target_spread,
                            time_budget_s=options.time_budget_s, sm_clock=options.sm_clock,
                            gpu_clocks=options.gpu_clocks, progress=progress)
        checks = _checks(runnable, check, prepare, args, kwargs, timing_stream)
        costs = next((b.costs for b in built if b.name == "graph" and b.costs), {})
        part = {"work": describe or w.describe(), "kind": w.kind,
                "ways": [{"name": b.name, "what": b.what, "note": b.note, "diagnosis": b.diagnosis} for b in built],
                "values": samples.values, "costs": costs, "mhz": samples.mhz, "rated_mhz": samples.rated_mhz,
                "sm_note": samples.sm_note, "stop_reason": samples.stop_reason, "calls": samples.calls,
                "rounds": samples.rounds, "seconds": samples.seconds, "checks": checks,
                "gpu_notes": dict(samples.notes), "held_calls": dict(samples.held_calls)}
        # "l2": the host/wall/device loop's L2 (warm); the held and cold rows are extra rows, not another config
        config = {"work": part["work"], "kind": w.kind, "ways": list(chosen), "l2": "warm",
                  "capture_mode": mode, "stream": kind, "calls": options.calls or "auto",
                  "reference": options.reference,
                  # what each x ref divides by (records whose graph way divided by another reference differ)
                  "references": [b.name for b in built if b.name in REFERENCES]}
        return part, _environment(dev), config
    finally:
        for b in reversed(built):
            if b.close is not None:
                try:
                    b.close()
                except Exception:
                    pass
        if w is not None:
            w.close()
        # the setup's state (the user's buffers) goes before the device it lives on
        w = args = kwargs = None  # noqa: F841
        built.clear()
        for thing in reversed(owned):
            try:
                thing.close()
            except Exception:
                pass


def sampling_of(options) -> dict:
    """The sampling settings of ``options`` (kept in the record's ``sampling``, not its config)."""
    return MeasureOptions.coerce(options).sampling


def measure_here(work, *, setup=None, check=None, prepare=None, stream=None, device=None, options,
                 progress=None):
    """``measure`` in this process; a target string is imported here first."""
    from .result import build_result

    if isinstance(work, str):
        work = load_target(work, "function")
    part, env, config = measure_part(work, setup=setup, check=check, prepare=prepare, stream=stream,
                                     device=device, options=options, progress=progress)
    config["processes"] = 1
    return build_result([part], config=config, env=env, sampling=sampling_of(options))
