"""Inclusive prefix product along the last dim, of factors near 1 (so the products stay finite)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.cumprod(self.dim)


batch_size = 128
input_shape = (4000,)
dim = -1
TAIL = {"batch_size": 37, "input_shape": (30011,)}


def get_inputs():
    return [torch.rand(batch_size, *input_shape) * 0.02 + 0.99]


def get_init_inputs():
    return [dim]
