"""A correct PyTorch program: torch.cuda.make_graphed_callables on a module, forward and backward replayed.

The doctor must find nothing; the graphed module's output must equal the same module run eager.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import inputs, need_torch


def main() -> None:
    torch = need_torch()
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh()).cuda()
    sample = torch.from_numpy(inputs(8 * 16).reshape(8, 16)).cuda().requires_grad_(True)
    graphed = torch.cuda.make_graphed_callables(module, (sample,))  # doctor: capture
    x = torch.from_numpy(inputs(8 * 16).reshape(8, 16)).cuda().requires_grad_(True)
    out = graphed(x)
    out.sum().backward()
    torch.cuda.synchronize()
    with torch.no_grad():
        want = module(x)
    # the same cuBLAS calls, but cuBLAS may pick another algorithm inside a capture: compared to float32 rounding
    np.testing.assert_allclose(out.detach().cpu().numpy(), want.cpu().numpy(), rtol=1e-5, atol=1e-6)
    print("the graphed module matches the module run eager (to float32 rounding)")


if __name__ == "__main__":
    main()
