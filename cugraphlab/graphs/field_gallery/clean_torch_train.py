"""A correct PyTorch program: a whole training step (forward, backward, SGD step, dropout from a registered
generator) captured once and replayed, as PyTorch's documentation shows ("whole network capture").

The doctor must find nothing; the replays must lower the loss and draw new dropout masks.
"""
import numpy as np

from cugraphlab.graphs.field_gallery._field import inputs, need_torch


def main() -> None:
    torch = need_torch()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(64, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.from_numpy(inputs(256 * 32).reshape(256, 32)).cuda()
    y = x[:, :1] * 0.5 + 0.25
    static_x, static_y = x.clone(), y.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(model(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):  # doctor: capture
        static_loss = torch.nn.functional.mse_loss(model(static_x), static_y)
        static_loss.backward()
        opt.step()
    losses = []
    for _ in range(20):
        g.replay()
        torch.cuda.synchronize()
        losses.append(float(static_loss))
    assert np.isfinite(losses).all() and losses[-1] < losses[0], f"the replays did not train: {losses[:3]}..."
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f} over 20 replays")


if __name__ == "__main__":
    main()
