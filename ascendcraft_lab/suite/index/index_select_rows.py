"""index_select along dim 0: whole rows of a 2-D tensor picked by a 1-D index (rows may repeat)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, 0, index)


num_rows = 8192
row_dim = 1024
picks = 2048
TAIL = {"num_rows": 1003, "row_dim": 20011, "picks": 37}


def get_inputs():
    return [torch.randn(num_rows, row_dim), torch.randint(0, num_rows, (picks,))]


def get_init_inputs():
    return []
