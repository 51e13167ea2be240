"""nvbench's side of the study: the same launches registered with cuda-bench (``cuda.bench``) and run by it.

For each workload two benchmarks: ``"<kernel> <size>"``, whose launcher makes the workload's one launch on the
stream nvbench hands it, and ``"<kernel> <size> graph x50"``, whose launcher makes one cuGraphLaunch of a graph of
50 of the launch (so nvbench's batch is paced by the GPU, not by the Python callback). nvbench times each state its
own way: cold (L2 flushed, the stream held by its blocking kernel, CUDA events around one call) and batch (events
around many calls the host makes back to back). ``run`` writes its JSON with ``--jsonbin`` (the raw cold GPU times
beside it, ``<json>-bin/N.bin``), which ``cugraphlab diff`` and this study's report read.

The launcher wraps nvbench's stream (``launch.get_stream()``, a ``cuda.bench.CudaStream`` with ``__cuda_stream__``)
with ``cugraphlab.Stream.wrap`` once per stream and keeps the prepared launch: a call costs one dict look-up and the
launch.
"""
from __future__ import annotations

from cugraphlab import Stream, cu

__all__ = ["Knobs", "register_workloads", "run_nvbench", "GRAPH_SUFFIX"]

GRAPH_SUFFIX = " graph x50"


class Knobs:
    """nvbench's settings per benchmark: stop after ``timeout`` s (cold and batch each), noise target, the cold
    loop's minimum time, the batch's target time. Defaults fit 18 benchmarks in about a minute."""

    def __init__(self, timeout: float = 2.0, max_noise: float = 0.005, min_time: float = 0.25,
                 batch_target_time: float = 0.25):
        self.timeout, self.max_noise, self.min_time = timeout, max_noise, min_time
        self.batch_target_time = batch_target_time
        self.refused: dict[str, str] = {}  # setting -> why nvbench refused it (the run goes on with its default)

    @classmethod
    def quick(cls) -> "Knobs":
        return cls(timeout=0.5, min_time=0.05, batch_target_time=0.05)

    def apply(self, b) -> None:
        """Each setting on benchmark ``b``; one nvbench refuses (another version's names) is kept in ``refused``
        and left at nvbench's default, so the study still runs."""
        for name, call in (("timeout", lambda: b.set_timeout(self.timeout)),
                           ("batch_target_time", lambda: b.set_batch_target_time(self.batch_target_time)),
                           ("max-noise", lambda: b.set_criterion_param_float64("max-noise", self.max_noise)),
                           ("min-time", lambda: b.set_criterion_param_float64("min-time", self.min_time))):
            try:
                call()
            except Exception as e:  # NVBenchRuntimeError, AttributeError: say which, use the default
                self.refused[name] = f"{type(e).__name__}: {e}"

    def to_dict(self) -> dict:
        return {k: v for k, v in vars(self).items()}


def _stream_key(launch) -> int:
    return int(launch.get_stream().__cuda_stream__()[1])


def _wrapped(launch, device) -> Stream:
    """nvbench's stream as a cugraphlab Stream (not owned: nvbench destroys it)."""
    return Stream.wrap(launch.get_stream(), device=device)


def register_workloads(bench, workloads, graphs: dict, device, knobs: Knobs) -> list[str]:
    """Register two benchmarks per workload with ``bench`` (the ``cuda.bench`` module, or a stand-in); returns
    their names. ``graphs``: workload name -> GraphExec of 50 of its launches."""
    names = []
    for w in workloads:
        def one(state, w=w):
            cache: dict = {}

            def launcher(launch):
                key = _stream_key(launch)
                prepared = cache.get(key)
                if prepared is None:
                    prepared = cache[key] = w.launch_on(_wrapped(launch, device))
                prepared()

            state.exec(launcher)

        def graph(state, exe=graphs[w.name]):
            handles: dict = {}

            def launcher(launch):
                key = _stream_key(launch)
                h = handles.get(key)
                if h is None:
                    h = handles[key] = _wrapped(launch, device)
                cu("cuGraphLaunch", exe.handle, h.handle)  # one call per 50 kernels: the checked door is cheap here

            state.exec(launcher)

        for fn, name in ((one, w.name), (graph, w.name + GRAPH_SUFFIX)):
            b = bench.register(fn)
            b.set_name(name)
            knobs.apply(b)
            names.append(name)
    return names


def run_nvbench(bench, json_path, ordinal: int = 0) -> list[str]:
    """Run every registered benchmark on device ``ordinal``, writing ``json_path`` (and its -bin folder) and its
    markdown table beside it (``.md``); returns the argv given to nvbench."""
    md = str(json_path)[:-5] + ".md" if str(json_path).endswith(".json") else str(json_path) + ".md"
    argv = ["cugraphlab-nvbench-study", "--device", str(ordinal), "--jsonbin", str(json_path), "--md", md]
    bench.run_all_benchmarks(argv)
    return argv
