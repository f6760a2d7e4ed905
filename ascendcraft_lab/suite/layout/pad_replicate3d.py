"""Edge (replicate) padding of a volume: F.pad(x, (1, 2, 2, 1, 1, 1), mode='replicate') with x of
shape (batch_size, channels, depth, height, width)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (1, 2, 2, 1, 1, 1), mode="replicate")


batch_size = 2
channels = 8
depth = 8
height = 32
width = 32
TAIL = {"batch_size": 1, "channels": 3, "depth": 2, "height": 5, "width": 9}


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return []
