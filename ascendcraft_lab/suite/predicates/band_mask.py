"""A value band as a mask: two comparisons combined with & and ~ (operator.and_ / invert on bool tensors)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (x > -0.5) & ~(x > y)


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
