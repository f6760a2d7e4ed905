"""Reflection padding of an image: nn.ReflectionPad2d((2, 3, 1, 2)) of x (batch_size, channels,
height, width), as a convolution's 'reflect' padding mode does before the convolution."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = nn.ReflectionPad2d((2, 3, 1, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pad(x)


batch_size = 8
channels = 16
height = 64
width = 64
TAIL = {"batch_size": 3, "channels": 5, "height": 7, "width": 13}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
