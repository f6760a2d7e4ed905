"""F.interpolate bilinear with antialias=True to a fixed size: a downscale (about 2.4x in H, 2.3x in W)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(out_h, out_w), mode="bilinear", align_corners=False, antialias=True)


batch_size = 2
channels = 3
height = 60
width = 84
out_h = 25
out_w = 36


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
