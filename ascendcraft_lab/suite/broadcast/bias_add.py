"""A bias add: a bias of shape (dim,) broadcast against (batch_size, dim), as after a matmul."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias


batch_size = 8
dim = 4096
TAIL = {"batch_size": 5, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(dim)]


def get_init_inputs():
    return []
