"""A stand-in for the ``cuda.bench`` module (cuda-bench 0.3.0's Python API as the nvbench study uses it), for tests
without a GPU or cuda-bench: ``register(fn)`` gives a Benchmark whose setters are recorded, ``run_all_benchmarks``
calls each benchmark with a State whose ``exec(launcher)`` calls the launcher with a Launch on a stream of its own
(made through the driver, like nvbench's), "cold" a few times and "batch" a few more, timing them on the host, and
writes the result file as nvbench's ``--jsonbin`` does (helpers.fake_nvbench)."""
from __future__ import annotations

import time

from fake_nvbench import write_nvbench_json


class CudaStream:
    def __init__(self, handle: int):
        self._h = int(handle)

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self._h)

    def addressof(self) -> int:
        return self._h


class Launch:
    def __init__(self, stream: CudaStream):
        self._stream = stream

    def get_stream(self) -> CudaStream:
        return self._stream


class Benchmark:
    def __init__(self, fn):
        self.fn, self.name, self.settings = fn, getattr(fn, "__name__", "bench"), {}

    def set_name(self, name):
        self.name = name
        return self

    def set_timeout(self, s):
        self.settings["timeout"] = s
        return self

    def set_batch_target_time(self, s):
        self.settings["batch_target_time"] = s
        return self

    def set_criterion_param_float64(self, name, v):
        if name not in ("max-noise", "min-time"):
            raise RuntimeError(f"Unrecognized stopping criterion parameter: `{name}` for `stdrel`")
        self.settings[name] = v
        return self


class State:
    def __init__(self, stream: CudaStream, cold: int, batch: int):
        self.stream, self.cold_n, self.batch_n = stream, cold, batch
        self.cold_s: list[float] = []
        self.batch_s: float | None = None

    def get_stream(self) -> CudaStream:
        return self.stream

    def exec(self, fn, *, batched=None, sync=False):
        launch = Launch(self.stream)
        perf = time.perf_counter
        for _ in range(self.cold_n):
            t0 = perf()
            fn(launch)
            self.cold_s.append(max(perf() - t0, 1e-7))
        t0 = perf()
        for _ in range(self.batch_n):
            fn(launch)
        self.batch_s = (perf() - t0) / self.batch_n


class FakeCudaBench:
    """The module stand-in: ``benchmarks`` registered, ``argv`` of the last run, the streams it made."""

    def __init__(self, cold: int = 30, batch: int = 20):
        self.benchmarks: list[Benchmark] = []
        self.cold, self.batch = cold, batch
        self.argv = None
        self.streams: list[int] = []

    def register(self, fn):
        b = Benchmark(fn)
        self.benchmarks.append(b)
        return b

    def run_all_benchmarks(self, argv):
        from cugraphlab import cu

        self.argv = list(argv)
        path = argv[argv.index("--jsonbin") + 1]
        results = {}
        for b in self.benchmarks:
            handle = int(cu("cuStreamCreate", 1))
            self.streams.append(handle)
            try:
                state = State(CudaStream(handle), self.cold, self.batch)
                b.fn(state)
                results[b.name] = {"Device=0": (state.cold_s, state.batch_s)}
            finally:
                cu("cuStreamDestroy", handle)
        write_nvbench_json(path, results)
