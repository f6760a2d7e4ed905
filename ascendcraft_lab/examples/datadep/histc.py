"""torch.histc: how many elements fall in each of `bins` equal bins between min and max."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, bins: int, low: float, high: float):
        super().__init__()
        self.bins, self.low, self.high = bins, low, high

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.histc(x, bins=self.bins, min=self.low, max=self.high)


batch_size = 16
dim = 4096
bins = 50
low = -2.5
high = 2.5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [bins, low, high]
