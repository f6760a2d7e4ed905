"""torch.unbind(x, dim=1) of x (batch_size, 3, dim): one output per index of the middle axis, the axis
dropped."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.unbind(x, dim=1)


batch_size = 16
branches = 3
dim = 1024
TAIL = {"batch_size": 5, "dim": 1001}


def get_inputs():
    return [torch.randn(batch_size, branches, dim)]


def get_init_inputs():
    return []
