"""x.chunk(3, dim=1) of x (batch_size, channels, length): parts of cdiv(channels, 3) channels."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return x.chunk(3, dim=1)


batch_size = 8
channels = 9
length = 256
TAIL = {"batch_size": 3, "channels": 7, "length": 19}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
