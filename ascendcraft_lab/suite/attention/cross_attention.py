"""Cross attention: decoder queries over encoder keys and values of another length (3-D, one head)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, memory: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(x, memory, values)


batch = 4
tgt_len = 40
src_len = 112
d = 64
TAIL = {"batch": 3, "tgt_len": 17, "src_len": 61}


def get_inputs():
    return [torch.randn(batch, tgt_len, d), torch.randn(batch, src_len, d), torch.randn(batch, src_len, d)]


def get_init_inputs():
    return []
