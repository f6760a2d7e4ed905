"""Exclusive prefix sum: each element gets the sum of the ones before it (written with cat + narrow)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.size(self.dim)
        shifted = torch.cat([torch.zeros_like(x.narrow(self.dim, 0, 1)), x.narrow(self.dim, 0, n - 1)], dim=self.dim)
        return torch.cumsum(shifted, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1
TAIL = {"batch_size": 37, "input_shape": (30011,)}


def get_inputs():
    return [torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
