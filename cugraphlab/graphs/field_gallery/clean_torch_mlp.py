"""A correct PyTorch program: a small MLP's inference step captured with static buffers, replayed on fresh inputs.

The pattern of PyTorch's CUDA graphs documentation (warm-up on a side stream, capture into static input and output
tensors, copy new data in, replay). The doctor must find nothing.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import inputs, need_torch


def main() -> None:
    torch = need_torch()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 16)).cuda().eval()
    static_in = torch.empty(32, 64, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):  # doctor: capture
        static_out = model(static_in)
    for _ in range(3):
        x = torch.from_numpy(inputs(32 * 64).reshape(32, 64)).cuda()
        static_in.copy_(x)
        static_out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        with torch.no_grad(), torch.cuda.stream(side):  # the same kernels eager, on the same kind of stream
            want = model(x)
        torch.cuda.synchronize()
        # the same cuBLAS calls, but cuBLAS may pick another algorithm inside a capture: compared to float32 rounding
        np.testing.assert_allclose(static_out.cpu().numpy(), want.cpu().numpy(), rtol=1e-5, atol=1e-6)
    print("the replays match the model run eager (to float32 rounding)")


if __name__ == "__main__":
    main()
