"""A sum over the first and last axes of (B, C, L): one value per channel (axes 0 and 2, not adjacent)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return x.sum(dim=(0, 2))


batch_size = 16
channels = 64
length = 1024
TAIL = {"batch_size": 5, "channels": 19, "length": 1001}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
