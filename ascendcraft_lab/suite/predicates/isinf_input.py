"""torch.isinf of inputs holding +inf, -inf and NaN (NaN is not infinite)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.isinf(x * 2.0)


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    x = torch.randn(batch_size, dim)
    x[x > 1.6] = float("inf")
    x[x < -1.6] = float("-inf")
    x[(x > 0.3) & (x < 0.4)] = float("nan")
    return [x]


def get_init_inputs():
    return []
