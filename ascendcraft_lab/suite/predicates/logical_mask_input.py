"""torch.logical_and / logical_or of a bool input mask with comparisons."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mask: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.logical_or(torch.logical_and(mask, x > 0.0), x < -1.0)


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.rand(batch_size, dim) > 0.5, torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
