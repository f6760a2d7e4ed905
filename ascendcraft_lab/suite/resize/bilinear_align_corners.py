"""nn.UpsamplingBilinear2d to a fixed size: bilinear with align_corners=True (corner pixels map to corners)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.UpsamplingBilinear2d(size=(out_h, out_w))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.up(x)


batch_size = 2
channels = 8
height = 40
width = 60
out_h = 97
out_w = 131
TAIL = {"batch_size": 3, "channels": 5, "height": 37, "width": 45}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
