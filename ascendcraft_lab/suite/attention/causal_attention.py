"""Causal self-attention: scaled q @ k^T plus a causal mask (0 on and below the diagonal, -inf above), softmax, @ v."""
import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: torch.Tensor) -> torch.Tensor:
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        return torch.softmax(att + causal, dim=-1) @ v


batch = 2
heads = 2
seq = 64
head_dim = 32
TAIL = {"batch": 1, "heads": 3, "seq": 27}


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    causal = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape), causal]


def get_init_inputs():
    return []
