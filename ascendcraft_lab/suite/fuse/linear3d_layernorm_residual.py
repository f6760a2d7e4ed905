"""A post-norm residual sublayer over tokens: LayerNorm(x + Linear(x)) on a (batch, seq, d) input."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.proj(x))


batch = 2
seq = 40
d = 144
TAIL = {"batch": 3, "seq": 13, "d": 67}


def get_inputs():
    return [torch.randn(batch, seq, d)]


def get_init_inputs():
    return [d]
