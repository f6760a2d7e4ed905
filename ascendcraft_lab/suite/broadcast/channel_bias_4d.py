"""A per-channel bias over an image batch: bias of shape (channels,) seen as (1, channels, 1, 1)
and added to (batch_size, channels, height, width), as a conv bias is; the bias varies along a
middle axis only."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias.view(1, -1, 1, 1)


batch_size = 8
channels = 64
height = 32
width = 32
TAIL = {"batch_size": 3, "channels": 7, "height": 5, "width": 13}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width), torch.randn(channels)]


def get_init_inputs():
    return []
