"""torch.argsort(stable=True) along the last dim, ascending, of a 3-D tensor (f32 randn rows do repeat values)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.argsort(x, dim=-1, stable=True)


batch_size = 8
channels = 16
dim = 512
TAIL = {"batch_size": 3, "channels": 5, "dim": 333}


def get_inputs():
    return [torch.randn(batch_size, channels, dim)]


def get_init_inputs():
    return []
