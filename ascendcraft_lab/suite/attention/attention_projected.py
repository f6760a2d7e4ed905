"""Single-head self-attention with its projections: q, k, v = x Wq^T, x Wk^T, x Wv^T, then attention."""
import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_model: int, d_head: int):
        super().__init__()
        self.q_proj = nn.Linear(d_model, d_head, bias=False)
        self.k_proj = nn.Linear(d_model, d_head, bias=False)
        self.v_proj = nn.Linear(d_model, d_head, bias=False)
        self.scale = 1.0 / math.sqrt(d_head)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        att = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)
        return att @ v


batch = 2
seq = 48
d_model = 96
d_head = 64
TAIL = {"batch": 3, "seq": 21}


def get_inputs():
    return [torch.randn(batch, seq, d_model)]


def get_init_inputs():
    return [d_model, d_head]
