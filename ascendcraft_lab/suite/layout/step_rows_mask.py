"""The inner rows of every plane, x[:, 1:rows - 1], kept or replaced per plane: a slice along a
middle axis beside a where() mask of shape (batch_size, 1, 1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, keep: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
        return torch.where(keep, x[:, 1:rows - 1], other)


batch_size = 8
rows = 130
dim = 200
TAIL = {"batch_size": 3, "rows": 9, "dim": 19}


def get_inputs():
    return [torch.randn(batch_size, rows, dim), torch.rand(batch_size, 1, 1) > 0.5,
            torch.randn(batch_size, rows - 2, dim)]


def get_init_inputs():
    return []
