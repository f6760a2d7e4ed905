"""torch._foreach_sigmoid of a list of tensors: one output per tensor of the list."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs: list):
        return torch._foreach_sigmoid(xs)


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.randn(rows, dim) for _ in range(num_tensors)]]


def get_init_inputs():
    return []
