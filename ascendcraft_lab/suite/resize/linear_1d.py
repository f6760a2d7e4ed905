"""F.interpolate linear of a 3-D signal (N, C, L) by 3, align_corners=True."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=3, mode="linear", align_corners=True)


batch_size = 4
channels = 16
length = 500
TAIL = {"batch_size": 3, "channels": 5, "length": 1003}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
