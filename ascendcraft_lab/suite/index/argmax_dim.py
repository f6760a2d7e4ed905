"""Argmax over the middle dim of a 3-D tensor: (B, M, N) -> (B, N) int64 indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=self.dim)


batch_size = 16
dim1 = 256
dim2 = 256
reduce_dim = 1
TAIL = {"batch_size": 7, "dim1": 37, "dim2": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
