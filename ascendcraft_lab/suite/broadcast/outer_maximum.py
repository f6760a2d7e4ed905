"""An outer-product-like broadcast with a maximum: a of shape (rows, 1, dim) against b of shape
(1, seq, 1) gives (rows, seq, dim); a varies along the first and last axes, b along the middle one."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a, b) - 0.5 * b


rows = 8
seq = 128
dim = 512
TAIL = {"rows": 3, "seq": 19, "dim": 71}


def get_inputs():
    return [torch.randn(rows, 1, dim), torch.randn(1, seq, 1)]


def get_init_inputs():
    return []
