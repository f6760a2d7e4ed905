"""F.interpolate bicubic with antialias=True and align_corners=True to a fixed size: a downscale
in H (the cubic filter, A = -0.5, widened by the scale) and an upscale in W."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(out_h, out_w), mode="bicubic", align_corners=True, antialias=True)


batch_size = 2
channels = 3
height = 96
width = 30
out_h = 31
out_w = 64
TAIL = {"batch_size": 1, "channels": 5, "height": 71, "width": 41}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
