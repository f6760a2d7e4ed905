"""nn.Conv1d, kernel 3, dilation 3, 3 groups, no bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, 3, dilation=3, groups=3, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 3
in_channels = 6
out_channels = 9
length = 77
TAIL = {'batch_size': 2, 'length': 29}


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
