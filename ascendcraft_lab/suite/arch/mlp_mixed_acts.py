"""Three Linear layers written out in forward: sigmoid, then tanh, the middle layer without a bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in: int, d_hidden: int, d_out: int):
        super().__init__()
        self.inp = nn.Linear(d_in, d_hidden)
        self.mid = nn.Linear(d_hidden, d_hidden, bias=False)
        self.head = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.sigmoid(self.inp(x))
        h = torch.tanh(self.mid(h))
        return self.head(h)


batch_size = 24
d_in = 80
d_hidden = 112
d_out = 24
TAIL = {"batch_size": 9, "d_in": 31, "d_hidden": 45, "d_out": 11}


def get_inputs():
    return [torch.randn(batch_size, d_in)]


def get_init_inputs():
    return [d_in, d_hidden, d_out]
