"""torch.msort of a vector: sorted along its only dim."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.msort(x)


dim = 3000
TAIL = {"dim": 77}


def get_inputs():
    return [torch.randn(dim)]


def get_init_inputs():
    return []
