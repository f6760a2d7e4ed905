"""L2 normalisation along dim 1: x / ||x||_2 (keepdim)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


batch_size = 16
dim = 16384
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
