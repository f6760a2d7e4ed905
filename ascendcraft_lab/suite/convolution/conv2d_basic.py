"""nn.Conv2d 3x3, no padding, with bias: the plain image convolution."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 4
in_channels = 3
out_channels = 16
height = 31
width = 29
TAIL = {'batch_size': 3, 'height': 17, 'width': 23}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
