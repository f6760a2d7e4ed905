"""torch.histc: counts of x in `bins` equal-width bins between min and max (values outside are not counted)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, bins: int, min: float, max: float):
        super().__init__()
        self.bins, self.min, self.max = bins, min, max

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.histc(x, bins=self.bins, min=self.min, max=self.max)


batch_size = 64
dim = 4096
bins = 100
low = -2.0
high = 2.0
TAIL = {"batch_size": 13, "dim": 2011, "bins": 37}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [bins, low, high]
