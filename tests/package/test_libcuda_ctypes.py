"""Every libcuda function the package calls through ctypes has its argtypes and restype set.

Without ``argtypes`` ctypes passes a Python int as a C ``int``: a 64-bit handle or pointer is cut to 32 bits and the
driver dereferences the rest of it (a segfault, or a wrong object). Without ``restype`` the CUresult comes back
through the same conversion. This reads the source: in each module that opens ``ctypes.CDLL("libcuda.so.1")`` (or
takes core._door.libcuda()), every ``cuXxx`` read off the library must have both set in that module (for
``libcuda()``, in core/_door.py, where it is opened). Functions only taken by address (``ctypes.cast``, as
bench/native.py does) and prototypes made with ``ctypes.CFUNCTYPE`` are not calls through the library object and
are not counted.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cugraphlab"
CALLS = PACKAGE / "core" / "_door.py"


def _is_libcuda_open(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("CDLL") and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "libcuda.so.1")


def _is_libcuda_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("libcuda", "_calls.libcuda")


class _Module:
    """The libcuda holders of one module, the cuXxx read off them, and the prototype attributes set."""

    def __init__(self, path: Path):
        self.path = path
        tree = ast.parse(path.read_text())
        self.holders: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_libcuda_open(node.value):
                self.holders |= {ast.unparse(t) for t in node.targets}
        self.accessed: dict[str, str] = {}  # symbol -> "module" or "libcuda()" (prototyped in core/_door.py)
        self.bound: list[tuple[int, str, str]] = []  # (line, local name, symbol) of each fn = lib.cuXxx
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("cu"):
                if ast.unparse(node.value) in self.holders:
                    self.accessed.setdefault(node.attr, "module")
                elif _is_libcuda_call(node.value):
                    self.accessed.setdefault(node.attr, "libcuda()")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
                v = node.value
                if v.attr.startswith("cu") and (ast.unparse(v.value) in self.holders or _is_libcuda_call(v.value)):
                    for t in node.targets:
                        self.bound.append((node.lineno, ast.unparse(t), v.attr))
        self.prototyped: dict[str, set[str]] = {"argtypes": set(), "restype": set()}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr in self.prototyped:
                    owner = t.value
                    if isinstance(owner, ast.Attribute) and ast.unparse(owner.value) in self.holders:
                        self.prototyped[t.attr].add(owner.attr)
                    else:
                        symbol = self._bound_before(ast.unparse(owner), node.lineno)
                        if symbol:
                            self.prototyped[t.attr].add(symbol)

    def _bound_before(self, name: str, line: int) -> str | None:
        """The symbol ``name`` was last bound to above ``line`` (fn = lib.cuA ... fn = lib.cuB: each its own)."""
        before = [(ln, symbol) for ln, n, symbol in self.bound if n == name and ln <= line]
        return max(before)[1] if before else None

    def unprototyped(self, calls_module: "_Module") -> list[str]:
        out = []
        for symbol, where in sorted(self.accessed.items()):
            home = self if where == "module" else calls_module
            missing = [a for a in ("argtypes", "restype") if symbol not in home.prototyped[a]]
            if missing:
                out.append(f"{self.path.relative_to(ROOT)}: {symbol} without {' and '.join(missing)}")
        return out


@functools.lru_cache(maxsize=1)
def _modules() -> list[_Module]:
    mods = [_Module(p) for p in sorted(PACKAGE.rglob("*.py"))]
    return [m for m in mods if m.holders or m.accessed]


def test_the_scan_sees_the_modules_that_call_libcuda():
    seen = {str(m.path.relative_to(ROOT)): set(m.accessed) for m in _modules()}
    assert "cuLaunchHostFunc" in seen["cugraphlab/core/_door.py"]
    assert "cuGraphExecUpdate_v2" in seen["cugraphlab/graphs/update.py"]
    assert {"cuGraphLaunch", "cuLaunchKernel"} <= seen["cugraphlab/bench/paired/ways.py"]


def test_every_libcuda_function_called_through_ctypes_is_prototyped():
    calls = _Module(CALLS)
    bad = [line for m in _modules() for line in m.unprototyped(calls)]
    assert not bad, "ctypes calls into libcuda without a prototype (64-bit handles would be cut):\n" + "\n".join(bad)


def test_the_check_fails_on_a_missing_prototype(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import ctypes\n"
                   "lib = ctypes.CDLL('libcuda.so.1')\n"
                   "fn = lib.cuGraphLaunch\n"
                   "fn.restype = ctypes.c_int\n"
                   "lib.cuStreamSynchronize(0)\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        bad = _Module(src).unprototyped(_Module(CALLS))
    finally:
        ROOT = saved
    assert bad == ["bad.py: cuGraphLaunch without argtypes", "bad.py: cuStreamSynchronize without argtypes and restype"]
