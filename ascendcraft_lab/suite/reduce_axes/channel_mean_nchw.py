"""Per-channel means of an NCHW tensor, kept as (1, C, 1, 1): mean over axes (0, 2, 3)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return x.mean(dim=(0, 2, 3), keepdim=True)


batch_size = 8
channels = 32
height = 32
width = 32
TAIL = {"batch_size": 3, "channels": 7, "height": 17, "width": 23}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
