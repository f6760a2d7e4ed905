"""torch.flip along the channels of a 3-D input beside a per-column bias: x.flip(1) + bias with x of
shape (batch_size, channels, length) and bias of shape (length,); channel c reads channel C - 1 - c."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x.flip(1) + bias


batch_size = 8
channels = 32
length = 256
TAIL = {"batch_size": 3, "channels": 5, "length": 37}


def get_inputs():
    return [torch.randn(batch_size, channels, length), torch.randn(length)]


def get_init_inputs():
    return []
