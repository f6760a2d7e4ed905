"""nn.GroupNorm without affine parameters: statistics per (sample, group of channels), nothing after."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_groups: int, channels: int):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups, channels, affine=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(x)


batch_size = 8
channels = 32
num_groups = 4
height = 32
width = 32
TAIL = {"batch_size": 5, "channels": 12, "num_groups": 3, "height": 17, "width": 23}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [num_groups, channels]
