"""Circular padding of a sequence: F.pad(x, (4, 3), mode='circular') with x of shape
(batch_size, channels, length), the padding a convolution with padding_mode='circular' reads."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (4, 3), mode="circular")


batch_size = 16
channels = 32
length = 1000
TAIL = {"batch_size": 3, "channels": 2, "length": 9}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
