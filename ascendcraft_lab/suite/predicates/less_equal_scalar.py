"""torch.le against a number (function form), on a 3-D tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.le(x, 0.25)


batch_size = 4
rows = 16
dim = 1024
TAIL = {"batch_size": 3, "rows": 7, "dim": 1001}


def get_inputs():
    return [torch.randn(batch_size, rows, dim)]


def get_init_inputs():
    return []
