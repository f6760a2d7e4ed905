"""nn.ConvTranspose2d 3x3, stride 2, dilation 2, 2 groups, no bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, 3, stride=2, dilation=2, groups=2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 6
out_channels = 4
height = 9
width = 10
TAIL = {'batch_size': 1, 'height': 5, 'width': 7}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
