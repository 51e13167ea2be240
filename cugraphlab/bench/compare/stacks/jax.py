"""JAX: ``jax.jit`` per op, one ``jax.jit`` of the whole chain, and (own process) the chain as a command buffer.

XLA generates the kernels (device time would be shown, but JAX exposes no stream to record CUDA events on, so
JAX rows carry the wall clock only: ``perf_counter_ns`` until ``block_until_ready()`` of the last output).
JAX arrays are immutable: every call returns a new array, so outputs cannot be poisoned beforehand; each timed
loop's last output is compared bit for bit with NumPy on that repeat's fresh inputs.

Variants (each runs in its own worker process, since XLA_FLAGS are read once per process):

* ``""`` (XLA's default flags): ``jit per op`` (launch = the jitted add; eager = four jitted calls per
  iteration) and ``one jit`` (the whole chain in one jitted function: XLA fuses it into one kernel, the fused
  analogue; XLA may contract x*s - y into an FMA, which with s = 2.0 changes no bit since 2x is exact);
* ``"cmdbuf"``: started with ``XLA_FLAGS`` = ``COMMAND_BUFFER_FLAGS`` (command buffers for fusions from one kernel
  up, and XLA's priority fusion disabled so the chain stays four kernels: optimization barriers alone do not keep
  the ops apart, XLA expands them before fusing); one jit of the chain, whose kernels XLA's command-buffer pass
  records into a CUDA graph: JAX's graph row. The row's note says whether the compiled HLO holds a command buffer
  and how many fusions (kernels) it has: read it before reading the figure.
"""
from __future__ import annotations

import re

import numpy as np

from ..way import Stack, StackUnavailable, Way, import_error, short_error

__all__ = ["open_stack", "JaxWay", "COMMAND_BUFFER_FLAGS"]

# command buffers for fusions, from one kernel up; priority fusion off so the chain stays four kernels (XLA removes
# optimization barriers before fusing, so they alone do not keep the ops apart)
COMMAND_BUFFER_FLAGS = ("--xla_gpu_enable_command_buffer=FUSION --xla_gpu_graph_min_graph_size=1 "
                        "--xla_disable_hlo_passes=priority-fusion")


def _unary(f):
    """f(t, y) as a one-argument function (mul and relu do not read y)."""
    return lambda t: f(t, None)


class JaxWay(Way):
    device_clock = "none: JAX exposes no stream to record CUDA events on"

    def __init__(self, stack, n, ops, scalar, way):
        super().__init__()
        self.jax, self.jnp, self.dev = stack.jax, stack.jnp, stack.device
        self.way, self.n, self.ops = way, n, tuple(ops)
        self.s = np.float32(scalar)
        self.last = None
        jax, jnp, s = self.jax, self.jnp, self.s
        one = {"add": lambda t, y: t + y, "sub": lambda t, y: t - y, "mul": lambda t, y: t * s,
               "relu": lambda t, y: jnp.where(t > 0, t, jnp.float32(0))}
        self.one = one
        note = "outputs are new arrays per call (nothing to poison); no device clock"
        if way == "jit per op":
            self.jitted = [(jax.jit(one[o]) if o in ("add", "sub") else jax.jit(_unary(one[o])), o in ("add", "sub"))
                           for o in self.ops]
            self.add = jax.jit(one["add"])
            self.runners = {"launch": self._run_launch, "eager": self._run_eager}
            self.unsupported = {"graph": "see the jax graph row (own process, XLA command buffers forced)",
                                "fused": "see the 'one jit' row"}
            self.kernels = {"launch": 1, "eager": len(ops)}
            self.notes = {"launch": note, "eager": note}
        elif way == "one jit":
            self.whole = jax.jit(self._chain)
            self.runners = {"fused": self._run_whole}
            self.unsupported = {m: "one jit is the fused row" for m in ("launch", "eager", "graph")}
            self.kernels = {"fused": 1}
            self.notes = {"fused": note + "; " + self._hlo_note(self.whole)}
        else:  # "one jit, command buffer"
            self.whole = jax.jit(lambda x, y: self._chain(x, y, barrier=True))
            self.runners = {"graph": self._run_whole}
            self.unsupported = {m: "this process only times the command-buffer graph" for m in
                                ("launch", "eager", "fused")}
            self.kernels = {"graph": len(ops)}
            self.notes = {"graph": note + f"; XLA_FLAGS {COMMAND_BUFFER_FLAGS}; " + self._hlo_note(self.whole)}

    def _chain(self, x, y, barrier=False):
        t = x
        for i, o in enumerate(self.ops):
            if barrier and i:
                t = self.jax.lax.optimization_barrier(t)
            t = self.one[o](t, y)
        return t

    def _hlo_note(self, fn) -> str:
        """What XLA compiled: the number of fusions (kernels) and whether a command buffer (CUDA graph) is used."""
        try:
            x = self.jax.device_put(np.zeros(self.n, np.float32), self.dev)
            text = fn.lower(x, x).compile().as_text()
        except Exception as e:
            return f"HLO not inspected ({short_error(e, 80)})"
        fusions = len(re.findall(r"\bfusion\(", text))
        cmd = "command buffer in HLO" if "command_buffer" in text else "no command buffer in HLO"
        return f"{fusions} fusion(s), {cmd}"

    def _run_launch(self, k):
        add, x, y = self.add, self.xd, self.yd
        out = None
        for _ in range(k):
            out = add(x, y)
        self.last = out

    def _run_eager(self, k):
        jitted, x, y = self.jitted, self.xd, self.yd
        t = None
        for _ in range(k):
            t = x
            for f, binary in jitted:
                t = f(t, y) if binary else f(t)
        self.last = t

    def _run_whole(self, k):
        f, x, y = self.whole, self.xd, self.yd
        out = None
        for _ in range(k):
            out = f(x, y)
        self.last = out

    def set_inputs(self, x, y):
        self.xd = self.jax.device_put(np.ascontiguousarray(x, np.float32), self.dev)
        self.yd = self.jax.device_put(np.ascontiguousarray(y, np.float32), self.dev)
        self.yd.block_until_ready()
        self.xd.block_until_ready()

    def poison(self):
        self.last = None  # outputs are fresh arrays: a stale one cannot be read

    def result(self, mode):
        return np.asarray(self.last)

    def synchronize(self):
        if self.last is not None:
            self.last.block_until_ready()

    def record_start(self):
        pass

    def record_end(self):
        pass

    def wait_end(self):
        self.last.block_until_ready()

    def elapsed_ms(self):
        return None


class _JaxStack(Stack):
    name = "jax"

    def __init__(self, jax, ordinal, variant):
        import jax.numpy as jnp

        self.jax, self.jnp, self.variant = jax, jnp, variant
        gpus = jax.devices("gpu")
        if ordinal >= len(gpus):
            raise StackUnavailable(f"JAX sees {len(gpus)} GPU(s), not device {ordinal}")
        self.device = gpus[ordinal]
        import jaxlib

        self.versions = {"jax": jax.__version__, "jaxlib": getattr(jaxlib, "__version__", None)}

    def ways(self, n, ops, scalar):
        if self.variant == "cmdbuf":
            return [JaxWay(self, n, ops, scalar, "one jit, command buffer")]
        return [JaxWay(self, n, ops, scalar, "jit per op"), JaxWay(self, n, ops, scalar, "one jit")]


def open_stack(device: int, ops, variant: str = "") -> _JaxStack:
    """JAX on GPU ``device``; ``variant`` "" (default XLA flags) or "cmdbuf" (command buffers forced)."""
    try:
        import jax
    except Exception as e:
        raise import_error(e, "jax") from e
    try:
        return _JaxStack(jax, device, variant)
    except StackUnavailable:
        raise
    except Exception as e:
        raise StackUnavailable(f"no GPU in JAX: {short_error(e)}") from e
