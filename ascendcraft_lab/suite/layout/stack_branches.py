"""torch.stack of three elementwise branches of x and y, each (batch_size, dim), along a new axis 1:
the output (batch_size, 3, dim), each branch stored at its index along the new axis."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.stack([x + y, x * y, torch.relu(x - y)], dim=1)


batch_size = 64
dim = 1024
TAIL = {"batch_size": 5, "dim": 37}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
