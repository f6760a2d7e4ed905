"""nn.Conv2d with an even 4x4 kernel and padding='same' (the odd pad goes right)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 4, padding='same')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 5
out_channels = 7
height = 20
width = 22
TAIL = {'batch_size': 3, 'height': 11, 'width': 15}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
