"""torch.masked_select: the elements of x where a bool mask is set, as a 1-D tensor in row-major order."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.masked_select(x, mask)


batch_size = 32
dim = 1024
TAIL = {"batch_size": 5, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.rand(batch_size, dim) < 0.5]


def get_init_inputs():
    return []
