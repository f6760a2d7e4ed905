"""nn.ConvTranspose3d 3x3x3, stride 2, padding 1."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 1
in_channels = 3
out_channels = 4
depth = 4
height = 5
width = 6
TAIL = {'batch_size': 2, 'depth': 3, 'height': 4, 'width': 3}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
