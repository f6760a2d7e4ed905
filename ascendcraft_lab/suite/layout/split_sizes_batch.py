"""torch.split(x, [3, 5], dim=0) of x (8, channels, length): parts of given sizes along the first
axis, each a contiguous run of the input."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.split(x, [3, 5], dim=0)


batch_size = 8
channels = 16
length = 512
TAIL = {"channels": 5, "length": 37}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
