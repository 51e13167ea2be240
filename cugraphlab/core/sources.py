"""Finding the kernel sources: package data in an installed wheel, the source tree's kernels/ otherwise."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import InvalidArgumentError

__all__ = ["kernel_dir", "kernel_names", "read_source", "read_headers"]


def kernel_dir():
    """The folder holding the .cu sources (a Traversable; a Path in the source tree)."""
    try:
        d = resources.files("cugraphlab.kernels")
        if d.joinpath("add.cu").is_file():
            return d
    except ModuleNotFoundError:
        pass
    d = Path(__file__).resolve().parent.parent / "kernels"
    if not (d / "add.cu").is_file():
        raise FileNotFoundError("cugraphlab's kernel sources are missing: reinstall the package")
    return d


#: Sources shipped beside the package's kernels but not part of its kernel set (the course's capstone reads
#: ``mlp.cu`` by name): ``load_kernels`` without names leaves them out; ``read_source`` still finds them.
NOT_IN_KERNEL_SET = frozenset({"mlp"})


def kernel_names() -> list[str]:
    """Every kernel source of the kernel set (without .cu), sorted by name."""
    return sorted(n for n in (p.name[:-3] for p in kernel_dir().iterdir() if p.name.endswith(".cu"))
                  if n not in NOT_IN_KERNEL_SET)


def read_source(name: str) -> str:
    """The text of kernels/<name>.cu."""
    f = kernel_dir().joinpath(f"{name}.cu")
    if not f.is_file():
        raise InvalidArgumentError(f"no kernel source {name}.cu; known: {', '.join(kernel_names())}")
    return f.read_text()


def read_headers() -> dict[str, str]:
    """Every header (*.cuh) beside the sources, by file name, for NVRTC's in-memory include list."""
    return {p.name: p.read_text() for p in kernel_dir().iterdir() if p.name.endswith(".cuh")}
