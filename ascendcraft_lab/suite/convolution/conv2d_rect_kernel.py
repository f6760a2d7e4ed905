"""nn.Conv2d with a 3x5 kernel, stride (2, 1), padding (1, 2)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (3, 5), stride=(2, 1), padding=(1, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 5
out_channels = 7
height = 25
width = 36
TAIL = {'batch_size': 3, 'height': 12, 'width': 19}


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
