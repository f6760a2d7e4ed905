"""Tensor.scatter_add along the last dim: src[b, j] added at x[b, index[b, j]] (repeated indices add up)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        return x.scatter_add(self.dim, index, src)


batch_size = 16
dim = 2048
picks = 256
TAIL = {"batch_size": 7, "dim": 1003, "picks": 101}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, dim, (batch_size, picks)), torch.randn(batch_size, picks)]


def get_init_inputs():
    return [1]
