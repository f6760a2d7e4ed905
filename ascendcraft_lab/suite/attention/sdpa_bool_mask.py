"""Padding-masked attention: a boolean attn_mask (True = attend) shared by every batch and head."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


batch = 2
heads = 2
seq = 48
kv_seq = 80
head_dim = 32
TAIL = {"seq": 19, "kv_seq": 53}


def get_inputs():
    keep = torch.rand(seq, kv_seq) > 0.3
    keep[:, 0] = True                       # every query attends to at least one key
    return [torch.randn(batch, heads, seq, head_dim), torch.randn(batch, heads, kv_seq, head_dim),
            torch.randn(batch, heads, kv_seq, head_dim), keep]


def get_init_inputs():
    return []
