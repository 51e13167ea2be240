"""PyTorch: a capture on cuda:1 while cuda:0 is the current device.

Thread: pytorch/pytorch#87794, "CUDA error: operation not permitted when stream is capturing (2 GPUs)": with the
network and the data on cuda:1, temporary work and allocations are made on the current device (cuda:0) during the
capture. Fix: make cuda:1 current for the warm-up and the whole capture (with torch.cuda.device(dev)).
Needs two GPUs: skips with that reason elsewhere.
"""
from cugraphlab.graphs.field_gallery._field import fixed, inputs, need_torch


def main() -> None:
    torch = need_torch(gpus=2)
    dev = torch.device("cuda:1")
    x = torch.from_numpy(inputs(4 * 32).reshape(4, 32)).to(dev).requires_grad_(True)
    lin = torch.nn.Linear(32, 32, bias=False).to(dev)

    def loss():
        y = torch.nn.functional.linear(x, lin.weight)
        return torch.nn.functional.softplus(y).sum()

    current = dev if fixed() else torch.device("cuda:0")
    with torch.cuda.device(current):
        s = torch.cuda.Stream(device=dev)
        s.wait_stream(torch.cuda.current_stream(dev))
        with torch.cuda.stream(s):
            for _ in range(3):
                loss().backward()
        torch.cuda.current_stream(dev).wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):  # doctor: capture
            out = loss()  # doctor: here
            out.backward()
    g.replay()
    torch.cuda.synchronize(dev)
    print("captured and replayed on", dev)


if __name__ == "__main__":
    main()
