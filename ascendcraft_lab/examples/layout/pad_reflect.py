"""F.pad(x, (3, 3, 2, 2), mode="reflect") of an NCHW image: the borders mirror the image."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (3, 3, 2, 2), mode="reflect")


batch_size = 4
channels = 8
height = 48
width = 64


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
