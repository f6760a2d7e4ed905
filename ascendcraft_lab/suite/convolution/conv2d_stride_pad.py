"""nn.Conv2d 3x3, stride 2, padding 1 (a ResNet downsampling conv)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 8
out_channels = 24
height = 33
width = 40
TAIL = {'batch_size': 3, 'height': 19, 'width': 21}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
