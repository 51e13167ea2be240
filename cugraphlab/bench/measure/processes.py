"""``measure`` in N fresh processes, one after the other (``measure_processes``: each a ``bench.workers`` worker
running ``measure_spec``), and the one record built from what each process saw (``gather``).

Processes: a worker cannot be handed a Python object, so the work is named by a *spec* (a plain dict): a target
``{"target": "file.py:fn", "setup": ..., "check": ..., "prepare": ..., "stream": "cupy", "device": 0}`` or a
``.cu`` kernel ``{"cu": "saxpy.cu", "kernel": "saxpy", "size": N, "args": [...], "block": 256, "grid": None,
"check": "file.py:fn", "device": 0}``. The processes run one after the other, never together: GPU contexts of
several processes time-slice the device, and each would measure the others. The first process calibrates the calls
per sample; the others use the same number.
"""
from __future__ import annotations

from typing import Any

from ...core.errors import CugraphlabError, InvalidArgumentError
from .options import MeasureOptions
from .run import measure_part, sampling_of
from .target import load_target, target_of

__all__ = ["measure_processes", "measure_spec", "run_spec", "spec_for", "gather"]


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

    planned = CuKernel.plan(spec["cu"], kernel=spec.get("kernel"), size=spec["size"], args=spec.get("args"),
                            block=spec.get("block") or 256, grid=spec.get("grid"))  # before any device
    user_check = load_target(spec["check"], "check") if spec.get("check") else None
    opened = Device(spec.get("device") or 0) if device is None else contextlib.nullcontext(device)
    with opened as dev, dev.create_stream() as stream:
        cu = planned.load(dev, stream)
        try:
            def check() -> Any:
                return user_check(cu.inputs, cu.outputs(stream))

            part, env, config = measure_part(cu.launch, check=check if user_check else None,
                                             prepare=lambda: cu.fill(stream),
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
    return build_result(parts, config=config, env=replies[0]["env"], sampling=sampling_of(options), notes=notes)


def measure_processes(work, *, setup=None, check=None, prepare=None, stream=None, device=None, processes: int,
                      options: dict, timeout_s: float | None = None, progress=None, spec: dict | None = None):
    """``measure`` in ``processes`` fresh processes, one after the other (module docstring)."""
    from ...core.errors import positive_int
    from ..workers import run_workers

    n = positive_int("processes", processes)
    spec = spec or spec_for(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device)
    options = MeasureOptions.coerce(options).to_dict()  # a plain dict travels to the workers
    timeout = timeout_s or max(60.0, 4 * float(options["time_budget_s"]) + 30.0)
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
