"""torch.flip along the batch axis times a per-channel scale: torch.flip(x, [0]) * scale with x of
shape (batch_size, channels, length) and scale of shape (channels, 1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return torch.flip(x, [0]) * scale


batch_size = 16
channels = 16
length = 512
TAIL = {"batch_size": 5, "channels": 3, "length": 19}


def get_inputs():
    return [torch.randn(batch_size, channels, length), torch.randn(channels, 1)]


def get_init_inputs():
    return []
