"""A result buffer made with torch.empty_like and filled whole (out[...] = relu(x) + 0.5): the write is the value."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        out[...] = torch.relu(x) + 0.5
        return out


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
