"""nn.Conv3d with a (2, 3, 3) kernel, stride (1, 2, 2), no bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, (2, 3, 3), stride=(1, 2, 2), bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 4
out_channels = 6
depth = 6
height = 13
width = 12
TAIL = {'batch_size': 1, 'depth': 4, 'height': 9, 'width': 7}


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
