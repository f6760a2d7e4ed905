"""LogSoftmax over dim=1 of rows longer than UB."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=self.dim)


batch_size = 16
dim = 16384
reduce_dim = 1
TAIL = {"batch_size": 13, "dim": 20011}   # the second shape: not a multiple of the tile or of 32 bytes


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [reduce_dim]
