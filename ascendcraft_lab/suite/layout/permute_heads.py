"""Attention heads regrouped: x.permute(0, 2, 1, 3) of x (batch_size, seq, heads, head_dim); the last
axis stays last, so every output row is an input row (strided copies only)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(0, 2, 1, 3).contiguous()


batch_size = 2
seq = 128
heads = 8
head_dim = 64
TAIL = {"batch_size": 2, "seq": 37, "heads": 3, "head_dim": 33}


def get_inputs():
    return [torch.randn(batch_size, seq, heads, head_dim)]


def get_init_inputs():
    return []
