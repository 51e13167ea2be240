"""A bench.measure.pool target whose worker takes ``CGL_TEST_SLOW_START`` seconds to start (its import sleeps that
long), as six workers do on a busy two-core machine. Import it before setting the variable: the spawned workers,
which import it to unpickle their target, inherit the variable and sleep; the test's process does not."""
from __future__ import annotations

import os
import time

time.sleep(float(os.environ.get("CGL_TEST_SLOW_START", "0")))


def quick_reply(spec, options, device=None):
    """A reply shaped like measure_spec's, at once."""
    return {"part": {"calls": options.get("calls") or 5, "pid": os.getpid()}, "env": {}, "config": {}}
