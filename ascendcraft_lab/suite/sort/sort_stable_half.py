"""torch.sort(stable=True) of fp16 rows: equal values (there are many) keep their order."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        return torch.sort(x, dim=-1, stable=True)


batch_size = 64
dim = 1000
TAIL = {"batch_size": 5, "dim": 2001}


def get_inputs():
    return [torch.randn(batch_size, dim).half()]


def get_init_inputs():
    return []
