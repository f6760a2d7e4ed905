"""A bias add: a bias of shape (dim,) broadcast against every row of (batch_size, dim)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias


batch_size = 64
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(dim)]


def get_init_inputs():
    return []
