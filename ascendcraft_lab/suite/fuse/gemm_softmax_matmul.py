"""Two products around a softmax: torch.softmax(x @ Wa, dim=-1) @ Wb (a gating network's mixture)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d: int, experts: int, d_out: int):
        super().__init__()
        self.wa = nn.Parameter(torch.randn(d, experts) * 0.1)
        self.wb = nn.Parameter(torch.randn(experts, d_out) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x @ self.wa, dim=-1) @ self.wb


batch_size = 72
d = 128
experts = 96
d_out = 112
TAIL = {"batch_size": 25, "d": 51, "experts": 39, "d_out": 43}


def get_inputs():
    return [torch.randn(batch_size, d)]


def get_init_inputs():
    return [d, experts, d_out]
