"""torch.nonzero of a 2-D mask: one (row, column) int64 row per set element, in row-major order."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nonzero(x)


batch_size = 64
dim = 512
TAIL = {"batch_size": 7, "dim": 1003}


def get_inputs():
    return [torch.rand(batch_size, dim) < 0.3]


def get_init_inputs():
    return []
