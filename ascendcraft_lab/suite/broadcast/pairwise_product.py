"""Both operands broadcast: a of shape (n, 1, dim) times b of shape (1, n, dim) gives every pair
(i, j) of rows, (n, n, dim); neither input has the output's shape."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a * b


n = 16
dim = 1024
TAIL = {"n": 5, "dim": 333}


def get_inputs():
    return [torch.randn(n, 1, dim), torch.randn(1, n, dim)]


def get_init_inputs():
    return []
