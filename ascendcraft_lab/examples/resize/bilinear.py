"""F.interpolate bilinear, align_corners=False, by a non-integer scale factor (a downsample)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=0.75, mode="bilinear", align_corners=False)


batch_size = 2
channels = 4
height = 48
width = 80


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
