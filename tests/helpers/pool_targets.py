"""Targets for bench.measure.pool workers in tests without a GPU (imported by name in the spawned workers)."""
from __future__ import annotations

import os
import time


def pid_reply(spec, options, device=None):
    """A reply shaped like measure_spec's, saying which process answered and the calls it was asked for."""
    if spec.get("sleep"):
        time.sleep(spec["sleep"])
    if spec.get("die"):
        os._exit(3)
    return {"part": {"calls": options.get("calls") or 7, "pid": os.getpid()}, "env": {}, "config": {}}


def fake_measure_spec(spec, options, device=None):
    """measure_spec on the fake driver (installed in this worker on first use)."""
    from fake_driver import current_driver, install_driver
    from fake_measure import MeasureFakeDriver

    if not isinstance(current_driver(), MeasureFakeDriver):
        install_driver(MeasureFakeDriver())
    from cugraphlab.bench.measure.processes import measure_spec

    return measure_spec(spec, options)
