"""A kernel in a ``.cu`` file made ready to measure without writing Python: ``cugraphlab measure saxpy.cu ...``.

    cugraphlab measure saxpy.cu --kernel saxpy --size 2^20 --args out,x,y,2.0,n

The kernel's parameter list is read from the source, so ``--args`` needs no types. One item per parameter, in
order:

- a name (``x``, ``out``): a device buffer of ``--size`` elements of the pointer's element type, filled with
  random values (standard normal for floating point, 0..99 for integers); the same name twice is the same buffer;
- ``n`` (or ``size``): the ``--size`` value, for an integer parameter;
- a number (``2.0``, ``-3``, ``1e-3``, ``2^10``): that value, of the parameter's type;
- ``KIND:VALUE`` (``f32:2.0``, ``u64:n``, ``ptr:x``) says the kind where the source does not (a macro, a typedef).

Kinds: ``ptr``, ``u64``, ``i64``, ``u32``, ``i32``, ``u16``, ``i16``, ``u8``, ``i8``, ``f32``, ``f64``, ``f16``
(``__half``), ``bf16`` (``__nv_bfloat16``): the Python API's scalar kinds (``core.args``) but structs. A buffer of
``__half`` is float16; of ``__nv_bfloat16``, raw bits (uint16: NumPy has no bfloat16), filled with small integers.
A kernel using ``__half`` includes ``<cuda_fp16.h>``: ``compile_source`` finds that header beside NVRTC.

The grid is ``ceil(size / block)`` blocks of ``--block`` threads (256) unless ``--grid`` says otherwise: one thread
per element, which a grid-stride kernel accepts as well. The kernel must be ``extern "C"`` (its name unmangled).
Struct parameters are refused here (use the Python API: ``Kernel.prepare`` with a NumPy structured scalar).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.errors import CompileError, CudaError, InvalidArgumentError

__all__ = ["Param", "parse_kernels", "parse_args", "CuKernel", "first_error_line", "KINDS_OF_TYPES"]

#: C scalar types -> (kernel argument kind, NumPy dtype of a buffer of them)
KINDS_OF_TYPES = {
    "float": ("f32", "float32"), "double": ("f64", "float64"),
    "int": ("i32", "int32"), "signed": ("i32", "int32"), "signed int": ("i32", "int32"), "int32_t": ("i32", "int32"),
    "unsigned": ("u32", "uint32"), "unsigned int": ("u32", "uint32"), "uint32_t": ("u32", "uint32"),
    "long": ("i64", "int64"), "long int": ("i64", "int64"), "long long": ("i64", "int64"),
    "long long int": ("i64", "int64"), "int64_t": ("i64", "int64"), "ptrdiff_t": ("i64", "int64"),
    "unsigned long": ("u64", "uint64"), "unsigned long int": ("u64", "uint64"),
    "unsigned long long": ("u64", "uint64"), "unsigned long long int": ("u64", "uint64"),
    "uint64_t": ("u64", "uint64"), "size_t": ("u64", "uint64"),
    "char": ("i8", "int8"), "signed char": ("i8", "int8"), "int8_t": ("i8", "int8"),
    "unsigned char": ("u8", "uint8"), "uint8_t": ("u8", "uint8"),
    "short": ("i16", "int16"), "short int": ("i16", "int16"), "int16_t": ("i16", "int16"),
    "unsigned short": ("u16", "uint16"), "unsigned short int": ("u16", "uint16"), "uint16_t": ("u16", "uint16"),
    "__half": ("f16", "float16"), "half": ("f16", "float16"),
    # NumPy has no bfloat16: a buffer of them is raw bits (uint16, filled with small integers: finite values)
    "__nv_bfloat16": ("bf16", "uint16"), "nv_bfloat16": ("bf16", "uint16"),
}
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "__grid_constant__"}
_EXPLICIT = ("ptr", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8", "f32", "f64", "f16", "bf16")
_FLOATS = ("f32", "f64", "f16", "bf16")
#: the largest finite value of each float kind (a scalar beyond it is refused)
_FLOAT_MAX = {"f32": float(np.finfo(np.float32).max), "f16": float(np.finfo(np.float16).max),
              "bf16": 3.3895313892515355e38, "f64": float(np.finfo(np.float64).max)}


@dataclass(frozen=True)
class Param:
    """One kernel parameter as declared: its text, name, kind ("ptr", "f32", ... or None: unknown) and, for a
    pointer, the NumPy dtype of what it points to."""

    text: str
    name: str
    kind: str | None
    dtype: str | None = None


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def _param(text: str) -> Param:
    t = " ".join(text.replace("*", " * ").replace("&", " & ").split())
    words = t.split(" ")
    pointer = "*" in words
    words = [w for w in words if w not in _QUALIFIERS and w not in ("*", "&")]
    name = words[-1] if len(words) > 1 else ""
    base = " ".join(words[:-1]) if len(words) > 1 else " ".join(words)
    kind, dtype = KINDS_OF_TYPES.get(base, (None, None))
    if pointer:
        return Param(text.strip(), name, "ptr", dtype)  # an unknown pointee (float4, a struct): float32 elements
    return Param(text.strip(), name, kind, None)


def parse_kernels(source: str) -> dict[str, list[Param]]:
    """Every ``__global__`` function of ``source``: name -> its parameters, in the order they are declared."""
    src = _strip_comments(source)
    out: dict[str, list[Param]] = {}
    for m in re.finditer(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+"
                         r"(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(([^)]*)\)", src):
        body = m.group(2).strip()
        params = [] if body in ("", "void") else [_param(p) for p in body.split(",")]
        out[m.group(1)] = params
    return out


def _number(text: str):
    t = text.strip()
    if re.fullmatch(r"2\^\d+", t):
        return 1 << int(t[2:])
    try:
        return int(t.replace("_", "")) if re.fullmatch(r"[+-]?\d[\d_]*", t) else float(t)
    except ValueError:
        return None


#: kind -> (smallest, largest) value an integer parameter of that kind holds
INT_RANGES = {"i32": (-(1 << 31), (1 << 31) - 1), "u32": (0, (1 << 32) - 1), "i64": (-(1 << 63), (1 << 63) - 1),
              "u64": (0, (1 << 64) - 1), "i16": (-(1 << 15), (1 << 15) - 1), "u16": (0, (1 << 16) - 1),
              "i8": (-128, 127), "u8": (0, 255)}


def _range_text(kind: str) -> str:
    lo, hi = INT_RANGES[kind]
    return f"{lo:,} to {hi:,}"


def available_host_bytes() -> int | None:
    """The host memory free for new allocations (MemAvailable), or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def parse_args(items: list[str], params: list[Param], size: int, kernel: str) -> list[tuple[str, str, object]]:
    """``args`` (the command line's ``--args``) against the kernel's parameters: one (kind, role, value) per parameter, where role is "buffer"
    (value: its name), "size" or "scalar". InvalidArgumentError naming the parameter for anything that does not fit."""
    signature = ", ".join(p.text for p in params)
    if len(items) != len(params):
        raise InvalidArgumentError(f"{kernel}({signature}) takes {len(params)} arguments, args gave "
                                   f"{len(items)}", params=("args",))
    out = []
    for i, (item, p) in enumerate(zip(items, params)):
        label = f"args item {i + 1} ({item!r} for {p.text})"
        kind, _, value = item.partition(":") if ":" in item else (None, "", item)
        if kind is not None and kind not in _EXPLICIT:
            raise InvalidArgumentError(f"{label}: unknown kind {kind!r}; kinds: {', '.join(_EXPLICIT)}", params=("args",))
        kind = kind or p.kind
        if kind is None:
            raise InvalidArgumentError(f"{label}: cannot tell the kind of '{p.text}' (a struct, a typedef?): write "
                                       f"KIND:VALUE ({', '.join(_EXPLICIT)}), or use the Python API for structs", params=("args",))
        value = value.strip()
        if kind == "ptr":
            if not value.isidentifier():
                raise InvalidArgumentError(f"{label}: a pointer takes a buffer name (like x or out)", params=("args",))
            out.append((kind, "buffer", value))
        elif value in ("n", "size"):
            if kind in _FLOATS:
                raise InvalidArgumentError(f"{label}: {value} is the element count, and '{p.text}' is not an integer", params=("args",))
            if not INT_RANGES[kind][0] <= size <= INT_RANGES[kind][1]:
                raise InvalidArgumentError(f"size {size:,} does not fit {p.text} ({kind}: {_range_text(kind)}): "
                                           f"give a smaller size, or declare it as size_t", params=("size",))
            out.append((kind, "size", size))
        else:
            number = _number(value)
            if number is None:
                raise InvalidArgumentError(f"{label}: expected a number, n, or a buffer name for a pointer", params=("args",))
            if isinstance(number, float) and not math.isfinite(number):
                raise InvalidArgumentError(f"{label}: expected a finite number, got {value}", params=("args",))
            if kind not in _FLOATS and not isinstance(number, int):
                raise InvalidArgumentError(f"{label}: '{p.text}' is an integer, got {value}", params=("args",))
            if kind in INT_RANGES and not INT_RANGES[kind][0] <= number <= INT_RANGES[kind][1]:
                raise InvalidArgumentError(f"{label}: does not fit {kind} ({_range_text(kind)})", params=("args",))
            if kind in _FLOAT_MAX and abs(number) > _FLOAT_MAX[kind]:
                raise InvalidArgumentError(f"{label}: {value} does not fit a {kind}", params=("args",))
            out.append((kind, "scalar", number))
    return out


def _check_host_memory(size: int, parsed, params) -> None:
    """The random inputs are drawn on the host (float64, then cast) and kept, and the outputs read back: refuse a
    size whose buffers this machine's free memory cannot hold, before anything is allocated."""
    itemsizes = {value: np.dtype(q.dtype or "float32").itemsize
                 for (k, role, value), q in zip(parsed, params) if role == "buffer"}
    need = size * (8 + 2 * sum(itemsizes.values()))
    free = available_host_bytes()
    if free is not None and need > free:
        raise InvalidArgumentError(f"size {size:,}: its {len(itemsizes)} buffer(s) need about {_gib(need)} of host "
                                   f"memory (random inputs drawn and kept, outputs read back), and {_gib(free)} is "
                                   f"free: give a smaller size", params=("size",))


def first_error_line(e: CompileError, path: str) -> str:
    """The first ``error`` line of an NVRTC log, with the file's name: one line for the command line."""
    for line in (e.log or "").splitlines():
        if "error" in line:
            return f"{path}: does not compile: {line.strip().replace(f'{e.name}.cu', Path(path).name)}"
    return f"{path}: does not compile ({e.status or 'NVRTC failed'})"


@dataclass
class CuKernel:
    """A kernel of a ``.cu`` file compiled, loaded, given its buffers and packed once (``launch``): what
    ``measure`` times. ``inputs``: host copies of the buffers as last filled; ``outputs()`` reads them back."""

    path: str
    name: str
    size: int
    params: list
    args: list
    block: int
    grid: int
    launch: object = None
    buffers: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    rng: object = None
    source: str = ""
    _owned: list = field(default_factory=list)

    @classmethod
    def plan(cls, path: str, *, kernel: str | None, size: int, args: list[str] | None, block: int = 256,
             grid: int | None = None, seed: int | None = None) -> "CuKernel":
        """The file read and the kernel's parameters matched with ``args``, before any device is opened (so that
        a missing file or a bad --args says so on any machine); ``build`` then compiles and loads it."""
        p = Path(path)
        if not p.is_file():
            raise InvalidArgumentError(f"{path}: no such file" if not p.exists() else f"{path} is not a file")
        source = p.read_text(encoding="utf-8", errors="replace")
        kernels = parse_kernels(source)
        if not kernels:
            raise InvalidArgumentError(f"{path} declares no __global__ kernel")
        if kernel is None:
            if len(kernels) > 1:
                raise InvalidArgumentError(f"{path} has {len(kernels)} kernels ({', '.join(kernels)}): "
                                           f"choose one with kernel", params=("kernel",))
            kernel = next(iter(kernels))
        if kernel not in kernels:
            raise InvalidArgumentError(f"{path} has no kernel {kernel!r}; its kernels: {', '.join(kernels)}")
        params = kernels[kernel]
        if args is None:
            example = ",".join("n" if q.kind in INT_RANGES and q.name in ("n", "size", "count")
                               else q.name if q.kind == "ptr" else "1.0" if q.kind in _FLOATS else "?"
                               for q in params)
            raise InvalidArgumentError(f"{kernel}({', '.join(q.text for q in params)}): give one args item per "
                                       f"parameter, e.g. args {example}", params=("args",))
        parsed = parse_args(args, params, size, kernel)
        if not 1 <= block <= 1024:
            raise InvalidArgumentError(f"block must be 1..1024, got {block}", params=("block",))
        grid = grid or -(-size // block)
        if grid > 2**31 - 1:
            raise InvalidArgumentError(f"size {size:,} needs {grid:,} blocks of {block}: more than a grid holds", params=("size",))
        _check_host_memory(size, parsed, params)
        return cls(path, kernel, size, params, parsed, block, grid, rng=np.random.default_rng(seed), source=source)

    @classmethod
    def build(cls, device, stream, path: str, *, kernel: str | None, size: int, args: list[str] | None,
              block: int = 256, grid: int | None = None, seed: int | None = None) -> "CuKernel":
        """``plan``, then compiled for ``device`` (NVRTC), loaded, its buffers made and filled, its launch packed
        once on ``stream``."""
        return cls.plan(path, kernel=kernel, size=size, args=args, block=block, grid=grid, seed=seed).load(
            device, stream)

    def check_compiles(self) -> None:
        """Compile the kernel for the newest arch NVRTC knows (as PTX), with no device: a source that does not
        compile says so (InvalidArgumentError, its first error) before anything looks for a GPU."""
        from ...core.program import compile_source, resolve_arch

        arch, kind = resolve_arch(None, None, ptx=True)
        try:
            compile_source(self.source, self.name, arch=arch, kind=kind)
        except CompileError as e:
            raise InvalidArgumentError(first_error_line(e, self.path)) from None

    def load(self, device, stream) -> "CuKernel":
        from ...core.program import compile_source, resolve_arch

        path, kernel, size, parsed, params = self.path, self.name, self.size, self.args, self.params
        grid, block, source = self.grid, self.block, self.source
        arch, kind = resolve_arch(None, device.compute_capability)
        try:
            compiled = compile_source(source, kernel, arch=arch, kind=kind)
        except CompileError as e:
            raise InvalidArgumentError(first_error_line(e, path)) from None
        try:
            module = device.load_module(compiled.image)
            self._owned.append(module)
            try:
                function = module.kernel(kernel)
            except CudaError as e:
                raise InvalidArgumentError(f"{path}: the driver finds no kernel {kernel!r} ({e.name}): declare it "
                                           f"extern \"C\" so that its name is not mangled") from None
            values = []
            for (k, role, value), q in zip(parsed, params):
                if role == "buffer":
                    if value not in self.buffers:
                        self.buffers[value] = device.array(size, q.dtype or "float32")
                        self._owned.append(self.buffers[value])
                    values.append(self.buffers[value])
                else:
                    values.append(value)
            self.fill(stream)
            self.launch = function.prepare(tuple(k for k, _, _ in parsed), tuple(values), (grid, block), stream)
        except BaseException:
            self.close()
            raise
        return self

    def fill(self, stream) -> None:
        """Fresh random values in every buffer (kept in ``inputs``)."""
        for name, buf in self.buffers.items():
            dt = np.dtype(buf.dtype)
            if dt.kind == "f":
                host = self.rng.standard_normal(self.size).astype(dt)
            else:
                host = self.rng.integers(0, 100, self.size).astype(dt)
            buf.copy_from(host, stream)
            self.inputs[name] = host

    def outputs(self, stream) -> dict:
        return {name: buf.to_numpy(stream=stream) for name, buf in self.buffers.items()}

    def describe(self) -> str:
        return (f"{self.name} from {Path(self.path).name} on {self.size:,} elements "
                f"(grid {self.grid:,} x {self.block})")

    def close(self) -> None:
        while self._owned:
            try:
                self._owned.pop().close()
            except Exception:
                pass
