"""A tensor of one element (shape (1,)) broadcast against a whole 3-D tensor: x * s + 1."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return x * s + 1.0


batch_size = 16
channels = 64
dim = 1000
TAIL = {"batch_size": 3, "channels": 7, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, channels, dim), torch.randn(1)]


def get_init_inputs():
    return []
