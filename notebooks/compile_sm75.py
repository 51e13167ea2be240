"""Compile every CUDA kernel the course runs for a T4 (sm_75) with NVRTC, on CPU (no GPU needed), and print one line
per source: the package's kernels (kernels/*.cu, the capstone's mlp.cu among them) and every kernel a notebook or
solution writes inline (a raw string holding `__global__`, assigned to an upper-case name). What a T4 cannot run for
other reasons (PDL needs sm_90, conditional nodes a newer driver) compiles here all the same: this says only that
NVRTC accepts every source for sm_75.

    python3 notebooks/compile_sm75.py [LOG]     (exit 1 when a source does not compile)
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ARCH = "sm_75"


def sources() -> list[tuple[str, str, tuple[str, ...]]]:
    """(label, CUDA source, extra NVRTC options) of every kernel the course compiles."""
    out = [(f"kernels/{p.name}", p.read_text(), ()) for p in sorted((ROOT / "kernels").glob("*.cu"))]
    for src in sorted((HERE / "src").glob("**/[0-9][0-9]_*.py")):
        text = "\n".join(line for line in src.read_text().splitlines() if not line.startswith("# %%"))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                    isinstance(node.value.value, str) and "__global__" in node.value.value:
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id.isupper():
                        out.append((f"{src.relative_to(HERE)}: {t.id}", node.value.value, ()))
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    import cugraphlab as cgl
    from cugraphlab.core import nvrtc_version

    headers = {p.name: p.read_text() for p in (ROOT / "kernels").glob("*.cuh")}
    lines = [f"# notebooks/compile_sm75.py: NVRTC {'.'.join(map(str, nvrtc_version()))}, cugraphlab "
             f"{cgl.__version__}, every course kernel for {ARCH} (cubin), no GPU"]
    failed = 0
    for label, text, options in sources():
        rdc = "cudaGraphLaunch" in text or "cuda_device_runtime_api" in text
        try:
            kind = "ptx" if rdc else "cubin"
            opts = options + (("-rdc=true",) + tuple(f"-I{d}" for d in _runtime_includes()) if rdc else ())
            c = cgl.compile_source(text, label.split("/")[-1].split(":")[-1].strip(), arch=ARCH, kind=kind,
                                   headers=headers, options=opts)
            lines.append(f"{label:52s} ok      {kind:5s} {len(c.image):>8,} bytes"
                         + (f"  ({'-rdc: relocatable, linked at load' if rdc else ''})" if rdc else ""))
        except Exception as e:  # noqa: BLE001 (one line per source, whatever NVRTC said)
            failed += 1
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            lines.append(f"{label:52s} FAILED  {type(e).__name__}: {first}")
    lines.append(f"# {len(lines) - 1 - failed} compiled, {failed} failed")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if argv:
        Path(argv[0]).write_text(text)
    return 1 if failed else 0


def _runtime_includes() -> list[str]:
    """Folders holding cuda_device_runtime_api.h: the CUDA runtime wheel's include folder, or /usr/local/cuda's."""
    found = []
    try:
        import nvidia.cuda_runtime as rt  # the cudart wheel (the devlaunch extra)
        found += [str(Path(p) / "include") for p in rt.__path__]
    except ImportError:
        pass
    for cand in ("/usr/local/cuda/include",):
        if Path(cand, "cuda_device_runtime_api.h").is_file():
            found.append(cand)
    return [d for d in found if Path(d, "cuda_device_runtime_api.h").is_file()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
