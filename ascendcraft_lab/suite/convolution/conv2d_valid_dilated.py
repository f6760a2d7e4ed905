"""nn.Conv2d 3x3, padding='valid', dilation 2."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding='valid', dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 3
in_channels = 4
out_channels = 8
height = 30
width = 26
TAIL = {'batch_size': 2, 'height': 15, 'width': 17}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
