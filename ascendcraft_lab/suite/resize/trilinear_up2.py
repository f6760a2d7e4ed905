"""F.interpolate trilinear x2 of a 5-D volume (N, C, D, H, W)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=False)


batch_size = 2
channels = 4
depth = 8
height = 24
width = 32
TAIL = {"batch_size": 3, "channels": 5, "depth": 7, "height": 11, "width": 29}


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return []
