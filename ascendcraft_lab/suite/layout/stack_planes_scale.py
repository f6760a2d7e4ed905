"""torch.stack of an input and its per-channel scaled copy along a new leading axis: x of shape
(batch_size, channels, length), scale of shape (channels, 1); the output (2, batch_size, channels, length)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return torch.stack([x, x * scale], dim=0)


batch_size = 8
channels = 16
length = 256
TAIL = {"batch_size": 3, "channels": 5, "length": 19}


def get_inputs():
    return [torch.randn(batch_size, channels, length), torch.randn(channels, 1)]


def get_init_inputs():
    return []
