"""Attention with an explicit softmax temperature: F.scaled_dot_product_attention(..., scale=0.05)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, scale=0.05)


batch = 2
heads = 2
seq = 96
head_dim = 64
TAIL = {"batch": 3, "heads": 1, "seq": 41}


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
