"""Tensor.index_copy along dim 0: row index[i] of x replaced by source[i]; a repeated index keeps the
last write (what PyTorch's loop does on one thread)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        return x.index_copy(0, index, source)


rows = 1024
dim = 512
picks = 300
TAIL = {"rows": 77, "dim": 1003, "picks": 129}


def get_inputs():
    return [torch.randn(rows, dim), torch.randint(0, rows, (picks,)), torch.randn(picks, dim)]


def get_init_inputs():
    return []
