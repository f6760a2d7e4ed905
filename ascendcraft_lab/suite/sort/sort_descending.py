"""torch.sort along the last dim, largest first: values and int64 indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.sort(x, dim=-1, descending=True)


batch_size = 64
dim = 2048
TAIL = {"batch_size": 13, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
