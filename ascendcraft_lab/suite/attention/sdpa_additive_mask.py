"""Attention with an additive float bias on the scores (ALiBi-like position bias, one per head)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


batch = 2
heads = 4
seq = 56
head_dim = 32
TAIL = {"batch": 1, "seq": 23}


def get_inputs():
    return [torch.randn(batch, heads, seq, head_dim), torch.randn(batch, heads, seq, head_dim),
            torch.randn(batch, heads, seq, head_dim), torch.randn(batch, heads, seq, seq)]


def get_init_inputs():
    return []
