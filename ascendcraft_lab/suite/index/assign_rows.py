"""x[index] = value: rows of a 3-D tensor overwritten by index (torch.export's aten.index_put_), a
repeated index keeping the last write."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        x[index] = value
        return x


rows = 600
height = 8
width = 96
picks = 200
TAIL = {"rows": 45, "height": 3, "width": 37, "picks": 61}


def get_inputs():
    return [torch.randn(rows, height, width), torch.randint(0, rows, (picks,)), torch.randn(picks, height, width)]


def get_init_inputs():
    return []
