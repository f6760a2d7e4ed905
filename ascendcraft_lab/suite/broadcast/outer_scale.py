"""Two broadcasts at once: a per-row factor (batch_size, 1) times a per-column factor (dim,), the
rank-one scaling of a matrix (as in a dequantisation with row and column scales)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, row_scale: torch.Tensor, col_scale: torch.Tensor) -> torch.Tensor:
        return x * row_scale * col_scale


batch_size = 512
dim = 512
TAIL = {"batch_size": 37, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.rand(batch_size, 1) + 0.5, torch.rand(dim) + 0.5]


def get_init_inputs():
    return []
