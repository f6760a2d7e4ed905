"""Two products summed, then an activation: relu(x @ Wx^T + h @ Wh^T + b), a recurrent cell's pre-activation."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in: int, d_hidden: int):
        super().__init__()
        self.wx = nn.Linear(d_in, d_hidden)
        self.wh = nn.Linear(d_hidden, d_hidden, bias=False)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.wx(x) + self.wh(h))


batch_size = 64
d_in = 96
d_hidden = 160
TAIL = {"batch_size": 21, "d_in": 37, "d_hidden": 75}


def get_inputs():
    return [torch.randn(batch_size, d_in), torch.randn(batch_size, d_hidden)]


def get_init_inputs():
    return [d_in, d_hidden]
