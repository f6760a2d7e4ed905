"""nn.ConvTranspose2d 3x3, stride 2, padding 1, output_padding 1 (a 2x upsampling)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 8
out_channels = 6
height = 11
width = 13
TAIL = {'batch_size': 1, 'height': 7, 'width': 5}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
