"""L1 normalisation along dim 1: x / sum(|x|, dim=1, keepdim=True)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.sum(torch.abs(x), dim=1, keepdim=True)


batch_size = 16
dim = 16384
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
