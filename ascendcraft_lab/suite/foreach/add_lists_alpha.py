"""torch._foreach_add of two lists with alpha: xs[i] + alpha * ys[i] for every i."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, xs: list, ys: list):
        return torch._foreach_add(xs, ys, alpha=0.5)


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.randn(rows, dim) for _ in range(num_tensors)], [torch.randn(rows, dim) for _ in range(num_tensors)]]


def get_init_inputs():
    return []
