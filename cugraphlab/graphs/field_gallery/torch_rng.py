"""PyTorch: dropout noise from a CUDA generator that was not registered with the graph.

Thread: pytorch/pytorch PR #63269 (review of the CUDA graphs API: "we do hard error if an unexpected (non-default)
generator is used in an op in a captured region"). Fix: g.register_generator_state(gen) before the capture; each
replay then draws new numbers.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import fixed, inputs, need_torch, warm_up


def main() -> None:
    torch = need_torch()
    n = 1 << 16
    x = torch.from_numpy(inputs(n)).cuda()
    out = torch.empty_like(x)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    warm_up(torch, lambda: out.copy_(x + torch.randn(n, device="cuda", generator=gen)))
    g = torch.cuda.CUDAGraph()
    if fixed():
        g.register_generator_state(gen)
    with torch.cuda.graph(g):  # doctor: capture
        noise = torch.randn(n, device="cuda", generator=gen)  # doctor: here
        out.copy_(x + noise)
    draws = []
    for _ in range(2):
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        draws.append((out - x).cpu().numpy())
    a, b = draws
    assert np.isfinite(a).all() and np.isfinite(b).all(), "a replay left NaN in the output"
    assert not np.array_equal(a, b), "two replays drew the same numbers: the generator did not advance"
    assert abs(float(a.mean())) < 0.05 and 0.9 < float(a.std()) < 1.1, "the noise is not standard normal"
    print(f"two replays drew different standard-normal noise (std {a.std():.3f}, {b.std():.3f})")


if __name__ == "__main__":
    main()
