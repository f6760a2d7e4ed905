"""Every row scaled by its own factor: a (batch_size, 1) tensor broadcast along the rows' dim."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale


batch_size = 256
dim = 1000
TAIL = {"batch_size": 37, "dim": 3001}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, 1)]


def get_init_inputs():
    return []
