"""The chain's kernels as plain Python for numba-cuda to compile (imported only by ``stacks.numba``, in its worker).

Module-level functions reading the global ``cuda``, so numba (and its simulator) resolves ``cuda.grid`` the usual
way; ``stacks.numba`` compiles them with explicit signatures. Importable without numba (``cuda`` is then None).
One float32 op per kernel: nothing to contract into an FMA.
"""
try:
    from numba import cuda
except Exception:  # noqa: BLE001 - not installed, or a numba that does not import against this NumPy
    cuda = None


def add(out, x, y, n):
    i, step = cuda.grid(1), cuda.gridsize(1)
    while i < n:
        out[i] = x[i] + y[i]
        i += step


def sub(out, x, y, n):
    i, step = cuda.grid(1), cuda.gridsize(1)
    while i < n:
        out[i] = x[i] - y[i]
        i += step


def mul(out, x, s, n):
    i, step = cuda.grid(1), cuda.gridsize(1)
    while i < n:
        out[i] = x[i] * s
        i += step


def relu(out, x, n):
    i, step = cuda.grid(1), cuda.gridsize(1)
    while i < n:
        t = x[i]
        out[i] = t if t > 0 else 0.0
        i += step


SIGNATURES = {
    "add": "void(float32[::1], float32[::1], float32[::1], int64)",
    "sub": "void(float32[::1], float32[::1], float32[::1], int64)",
    "mul": "void(float32[::1], float32[::1], float32, int64)",
    "relu": "void(float32[::1], float32[::1], int64)",
}
