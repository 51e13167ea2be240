"""How ``measure`` runs: in this process (``measure_here``), or in N fresh processes one after the other
(``measure_processes``, each a ``bench.workers`` worker running ``measure_spec``), and the one record built from
what each process saw (``result.build_result``).

In this process, in order:

    place       the device and the stream (a launch and a graph bring theirs; a callable gets a stream made
                here, in the view ``stream=`` asks for, or the stream object it was given)
    setup       once; its state goes to the work, prepare and check (``target`` module docstring)
    warm        a callable is called twice (a function that raises stops here, in one line), then captured once
                through the doctor: a capture holding no node means it ignored the stream (StreamIgnoredError)
    ways        built (``work``): eager, graph (captured through the doctor), native, floor
    sample      rounds of every way in turn (``sampler``)
    check       per way: prepare, one call of that way, synchronize, check
    close       ways, then what was made here (streams, the device)

Processes: a worker cannot be handed a Python object, so the work is named by a *spec* (a plain dict): a target
``{"target": "file.py:fn", "setup": ..., "check": ..., "prepare": ..., "stream": "cupy", "device": 0}`` or a
``.cu`` kernel ``{"cu": "saxpy.cu", "kernel": "saxpy", "size": N, "args": [...], "block": 256, "grid": None,
"check": "file.py:fn", "device": 0}``. The processes run one after the other, never together: GPU contexts of
several processes time-slice the device, and each would measure the others. The first process calibrates the calls
per sample; the others use the same number.
"""
from __future__ import annotations

from typing import Any, Callable

from ...core.errors import CugraphlabError, InvalidArgumentError
from .target import call_setup, load_target, run_check, target_of
from .work import WAYS, CallableWork, LaunchWork, GraphWork, as_work, call_user

__all__ = ["measure_here", "measure_processes", "measure_spec", "run_spec", "spec_for", "measure_part"]


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


def measure_part(work, *, setup=None, check=None, prepare=None, stream=None, device=None, options: dict,
                 progress: Callable[[str], None] | None = None,
                 describe: str | None = None) -> tuple[dict, Any, dict]:
    """Measure ``work`` in this process: (its raw part, the Device, the config) (module docstring)."""
    from .sampler import sample_ways

    owned: list = []
    built: list = []
    w = args = kwargs = None
    try:
        work, dev, timing_stream, view, kind = _place(work, device, stream, owned)
        setup, check, prepare = (_resolve(f, what) for f, what in ((setup, "setup"), (check, "check"),
                                                                     (prepare, "prepare")))
        args, kwargs = call_setup(setup, view if view is not None else timing_stream)
        w = as_work(work, timing_stream, view, args, kwargs)
        chosen = _choose(w, options.get("ways"))
        mode = options.get("capture_mode", "thread_local")
        if isinstance(w, CallableWork):
            label = f"{w.name}(stream)"
            for _ in range(2):
                call_user(label, w.call_once)
            timing_stream.synchronize()
            if "graph" not in chosen:
                w.check_stream(mode=mode)
        for name in chosen:
            built.append(w.build(name, mode=mode))
        if options.get("reference", True):
            from .work import reference_way

            built.append(reference_way(dev, timing_stream))
        runnable = [b for b in built if b.run is not None]
        samples = call_user("the work, in the timed loops,", sample_ways, runnable, dev, timing_stream,
                            calls=options.get("calls"), l2=options.get("l2", "warm"),
                            min_samples=options["min_samples"], max_samples=options["max_samples"],
                            target_spread=options["target_spread"], time_budget_s=options["time_budget_s"],
                            sm_clock=options.get("sm_clock", True), progress=progress)
        checks = {}
        if check is not None:
            for b in runnable:
                if b.name == "reference":
                    continue
                if prepare is not None:
                    call_user("prepare", prepare, *args, **kwargs)
                b.run(1)
                timing_stream.synchronize()
                checks[b.name] = run_check(check, args, kwargs)
        costs = next((b.costs for b in built if b.name == "graph" and b.costs), {})
        part = {"work": describe or w.describe(), "kind": w.kind,
                "ways": [{"name": b.name, "what": b.what, "note": b.note, "diagnosis": b.diagnosis} for b in built],
                "values": samples.values, "costs": costs, "mhz": samples.mhz, "rated_mhz": samples.rated_mhz,
                "sm_note": samples.sm_note, "stop_reason": samples.stop_reason, "calls": samples.calls,
                "rounds": samples.rounds, "seconds": samples.seconds, "checks": checks}
        config = {"work": part["work"], "kind": w.kind, "ways": list(chosen), "l2": options.get("l2", "warm"),
                  "capture_mode": mode, "stream": kind, "calls": options.get("calls") or "auto",
                  "reference": bool(options.get("reference", True))}
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


def _sampling(options: dict) -> dict:
    return {k: options[k] for k in ("min_samples", "max_samples", "target_spread", "time_budget_s") if k in options}


def measure_here(work, *, setup=None, check=None, prepare=None, stream=None, device=None, options: dict,
                 progress=None):
    """``measure`` in this process; a target string is imported here first."""
    from .result import build_result

    if isinstance(work, str):
        work = load_target(work, "function")
    part, env, config = measure_part(work, setup=setup, check=check, prepare=prepare, stream=stream,
                                     device=device, options=options, progress=progress)
    config["processes"] = 1
    return build_result([part], config=config, env=env, sampling=_sampling(options))


# --- processes --------------------------------------------------------------------------------------------------
def _name_of(fn, what: str) -> str | None:
    if fn is None or isinstance(fn, str):
        return fn
    try:
        return target_of(fn)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"{what}: {e}") from None


def spec_for(work, *, setup=None, check=None, prepare=None, stream=None, device=None) -> dict:
    """The spec a worker process builds the work from (module docstring): names, not objects."""
    if not isinstance(work, str) and not callable(work):
        raise InvalidArgumentError(f"processes=N imports the work in each process: give a 'path.py:function' "
                                   f"target or a top-level function, not a {type(work).__name__}")
    if stream is not None and not isinstance(stream, str):
        raise InvalidArgumentError("processes=N makes the stream in each process: give stream= as a kind "
                                   "(cugraphlab, cupy, torch, cuda.core, handle), not a stream object")
    if device is not None and (isinstance(device, bool) or not isinstance(device, int)):
        device = getattr(device, "ordinal", device)
    return {"target": _name_of(work, "the work"), "setup": _name_of(setup, "setup"),
            "check": _name_of(check, "check"), "prepare": _name_of(prepare, "prepare"), "stream": stream,
            "device": device or 0}


def run_spec(spec: dict, options: dict, progress=None, device=None) -> tuple[dict, Any, dict]:
    """Build the work a spec names and measure it here: (part, env, config). ``device``: an open Device to use
    (a worker that serves many requests keeps one); default: the spec's ordinal, opened and closed here."""
    if spec.get("cu"):
        return _run_cu(spec, options, progress, device)
    work = load_target(spec["target"], "function")
    return measure_part(work, setup=spec.get("setup"), check=spec.get("check"), prepare=spec.get("prepare"),
                        stream=spec.get("stream"), device=device if device is not None else spec.get("device"),
                        options=options, progress=progress)


def _run_cu(spec: dict, options: dict, progress=None, device=None):
    import contextlib

    from ...core.device import Device
    from .cu_kernel import CuKernel

    opened = Device(spec.get("device") or 0) if device is None else contextlib.nullcontext(device)
    with opened as dev, dev.create_stream() as stream:
        cu = CuKernel.build(dev, stream, spec["cu"], kernel=spec.get("kernel"), size=spec["size"],
                            args=spec.get("args"), block=spec.get("block") or 256, grid=spec.get("grid"))
        try:
            check = None
            if spec.get("check"):
                user_check = load_target(spec["check"], "check")

                def check() -> Any:
                    return user_check(cu.inputs, cu.outputs(stream))

            part, env, config = measure_part(cu.launch, check=check, prepare=lambda: cu.fill(stream),
                                             options=options, progress=progress, describe=cu.describe())
            config["cu"] = {k: spec.get(k) for k in ("kernel", "size", "args", "block", "grid")}
            return part, env, config
        finally:
            cu.close()


def measure_spec(spec: dict, options: dict, device=None) -> dict:
    """The worker's body (a top-level function: spawn sends it by name): measure what ``spec`` names and return
    ``{"part", "env", "config"}``, or ``{"error": message, "usage": bool}`` instead of raising, so that no
    traceback is printed and the parent can say what went wrong in one line."""
    try:
        part, env, config = run_spec(spec, options, device=device)
    except Exception as e:
        kind = next((c.__name__ for c in _REPLAYED if isinstance(e, c)), "")
        text = str(e) if isinstance(e, CugraphlabError) else f"{type(e).__name__}: {e}"
        return {"error": text, "class": kind}
    return {"part": part, "env": env, "config": config}


def _replayed():
    from ...core.errors import NoDeviceError, UnsupportedError

    return (NoDeviceError, InvalidArgumentError, UnsupportedError, CugraphlabError)


_REPLAYED = _replayed()


def _raise_worker_error(reply: dict, index: int):
    """The worker's error raised here as the same kind of cugraphlab error (so the CLI exits as it would have)."""
    message = f"process {index + 1}: {reply['error']}" if index else reply["error"]
    cls = next((c for c in _REPLAYED if c.__name__ == reply.get("class")), CugraphlabError)
    raise cls(message)


def gather(replies: list[dict], options: dict, notes: list[str]):
    """One record from the workers' replies (raising the first one's error)."""
    from .result import build_result

    for i, reply in enumerate(replies):
        if "error" in reply:
            _raise_worker_error(reply, i)
    parts = [r["part"] for r in replies]
    config = dict(replies[0]["config"], processes=len(parts))
    return build_result(parts, config=config, env=replies[0]["env"], sampling=_sampling(options), notes=notes)


def measure_processes(work, *, setup=None, check=None, prepare=None, stream=None, device=None, processes: int,
                      options: dict, timeout_s: float | None = None, progress=None, spec: dict | None = None):
    """``measure`` in ``processes`` fresh processes, one after the other (module docstring)."""
    from ...core.errors import positive_int
    from ..workers import run_workers

    n = positive_int("processes", processes)
    spec = spec or spec_for(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device)
    timeout = timeout_s or max(60.0, 4 * float(options.get("time_budget_s", 5.0)) + 30.0)
    options = dict(options)
    replies, notes = [], []
    for i in range(n):
        outcome = run_workers(measure_spec, [{"spec": spec, "options": options}], timeout_s=timeout,
                              start_together=False)[0]
        if not outcome.ok:
            raise CugraphlabError(f"measure: process {i + 1} of {n} {outcome.error}")
        reply = outcome.result
        if "error" in reply:
            _raise_worker_error(reply, i)
        replies.append(reply)
        if options.get("calls") is None:
            options["calls"] = reply["part"]["calls"]  # the first process calibrates; the others follow it
        if progress is not None:
            progress(f"process {i + 1}/{n} done ({reply['part']['rounds']} rounds)")
    notes.append(f"{n} processes, one after the other; calls per sample {options['calls']} (calibrated by the "
                 f"first)" if len(replies) > 1 else "")
    return gather(replies, options, [x for x in notes if x])
