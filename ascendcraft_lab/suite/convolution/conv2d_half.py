"""nn.Conv2d 3x3, padding 1, in float16 (weights and input)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1).half()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 4
out_channels = 8
height = 18
width = 21
TAIL = {'batch_size': 1, 'height': 11, 'width': 13}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width).half()]


def get_init_inputs():
    return [in_channels, out_channels]
