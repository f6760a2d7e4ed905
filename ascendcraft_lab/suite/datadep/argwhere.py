"""torch.argwhere of a 3-D float tensor with about half its elements zero (ReLU of randn)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argwhere(x)


batch_size = 4
rows = 32
dim = 96
TAIL = {"batch_size": 3, "rows": 5, "dim": 1003}


def get_inputs():
    return [torch.relu(torch.randn(batch_size, rows, dim))]


def get_init_inputs():
    return []
