"""torch.histc with min == max (the default 0, 0): the bins span the data's own min and max."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, bins: int):
        super().__init__()
        self.bins = bins

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.histc(x, bins=self.bins)


size = 65536
bins = 64
TAIL = {"size": 30011, "bins": 10}


def get_inputs():
    return [torch.randn(size)]


def get_init_inputs():
    return [bins]
