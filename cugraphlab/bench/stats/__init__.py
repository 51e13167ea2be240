"""Statistics of samples: ``summary`` (robust summaries, the adaptive sampler ``sample_adaptively``),
``intervals`` (ratios of medians with intervals, rank tests), ``paired_stats`` and ``paired_diff`` (paired
rounds), ``fits`` (linear fits, flatness). In 0.1.0 this was one module; its names say where they went."""


def __getattr__(name: str):
    from ..._lazy import missing

    raise missing(__name__, name)
