"""torch._foreach_norm: the L2 norm of every tensor of a list (gradient clipping's first step), one 0-d output each."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs: list):
        return torch._foreach_norm(xs)


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.randn(rows, dim) for _ in range(num_tensors)]]


def get_init_inputs():
    return []
