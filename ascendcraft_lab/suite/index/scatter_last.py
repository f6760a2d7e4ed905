"""Tensor.scatter along the last dim: src[b, j] written at x[b, index[b, j]]; a repeated index keeps
the last write (PyTorch's loop on one thread)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        return x.scatter(-1, index, src)


batch_size = 16
dim = 1024
picks = 200
TAIL = {"batch_size": 5, "dim": 301, "picks": 77}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, dim, (batch_size, picks)), torch.randn(batch_size, picks)]


def get_init_inputs():
    return []
