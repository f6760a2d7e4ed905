"""torch.movedim(x, 1, -1) of a 5-D x (batch_size, channels, depth, height, width): channels last."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.movedim(x, 1, -1)


batch_size = 2
channels = 4
depth = 8
height = 16
width = 16
TAIL = {"batch_size": 1, "channels": 3, "depth": 5, "height": 7, "width": 9}


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return []
