"""Tensor.index_add along dim 0: alpha * source rows added into the rows an index names (repeats add up)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor, index: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        return x.index_add(0, index, source, alpha=self.alpha)


num_rows = 1024
row_dim = 512
picks = 4096
alpha = 0.5
TAIL = {"num_rows": 37, "row_dim": 1003, "picks": 101}


def get_inputs():
    return [torch.randn(num_rows, row_dim), torch.randint(0, num_rows, (picks,)), torch.randn(picks, row_dim)]


def get_init_inputs():
    return [alpha]
