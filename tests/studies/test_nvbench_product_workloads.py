"""The product study's workloads (benchmarks/studies/nvbench_product/workloads.py): the names both sides share, the
command line's targets, and the NumPy references the GPU outputs are compared with bit for bit."""
from __future__ import annotations

import numpy as np


def test_the_workloads_are_the_studys_twelve_and_more():
    from studies.nvbench_product import workloads as w

    assert len(w.WORKLOADS) >= 12 and len(set(w.WORKLOADS)) == len(w.WORKLOADS)
    for name in ("saxpy 2^20", "add 2^20", "relu 1,024", "long 2^20", "reduce 2^20", "graph50 add 2^20",
                 "cupy chain 2^20", "torch chain 2^20"):
        assert name in w.WORKLOADS
        assert callable(getattr(w, f"setup_{w.slug(name)}"))  # cugraphlab measure workloads.py:cli_call --setup ...
    assert w.slug("add 1,024") == "add_1024" and w.slug("add 2^20") == "add_2e20"


def test_the_reduction_reference_adds_in_the_kernels_tree_order():
    from studies.nvbench_product.workloads import REDUCE_BLOCK, reduce_expected

    rng = np.random.default_rng()
    x = rng.standard_normal(4 * REDUCE_BLOCK, dtype=np.float32)
    got = reduce_expected(x)
    blocks = x.reshape(-1, REDUCE_BLOCK)
    for b in range(4):  # the same tree, written as the kernel's loop over strides
        s = blocks[b].copy()
        stride = REDUCE_BLOCK // 2
        while stride:
            s[:stride] = np.add(s[:stride], s[stride:2 * stride], dtype=np.float32)
            stride //= 2
        assert got[b].tobytes() == s[0].tobytes()


def test_the_long_kernels_reference_rounds_each_step():
    from studies.nvbench_product.workloads import LONG_A, LONG_B, long_expected

    x = np.random.default_rng().standard_normal(8, dtype=np.float32)
    v = x.copy()
    for _ in range(5):
        v = np.float32(np.float32(v * np.float32(LONG_A)) + np.float32(LONG_B))
    assert long_expected(x, 5).tobytes() == v.astype(np.float32).tobytes()
