"""NCHW -> NHWC: x.permute(0, 2, 3, 1).contiguous() of x (batch_size, channels, height, width); the
last axis moves, so blocks are transposed in UB."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(0, 2, 3, 1).contiguous()


batch_size = 4
channels = 16
height = 32
width = 32
TAIL = {"batch_size": 3, "channels": 5, "height": 17, "width": 19}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
