"""Each channel divided by its own scale: scale of shape (channels, 1, 1) against
(batch_size, channels, height, width), one value per plane of height x width."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x / scale


batch_size = 4
channels = 16
height = 24
width = 96
TAIL = {"batch_size": 5, "channels": 3, "height": 7, "width": 33}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width), torch.rand(channels, 1, 1) + 0.5]


def get_init_inputs():
    return []
