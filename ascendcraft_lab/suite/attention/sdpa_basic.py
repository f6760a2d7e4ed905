"""Multi-head attention core: F.scaled_dot_product_attention(q, k, v), the default 1/sqrt(d) scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v)


batch = 2
heads = 4
seq = 64
head_dim = 32
TAIL = {"batch": 1, "heads": 3, "seq": 37}


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
