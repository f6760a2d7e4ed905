"""4-D product (attention scores): Q @ K^T over (batch, heads), written as an einsum."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Q: torch.Tensor, Kt: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhik,bhjk->bhij", Q, Kt)


batch_size = 2
heads = 4
seq = 128
head_dim = 64
TAIL = {"batch_size": 1, "heads": 3, "seq": 45, "head_dim": 40}


def get_inputs():
    return [torch.randn(batch_size, heads, seq, head_dim), torch.randn(batch_size, heads, seq, head_dim)]


def get_init_inputs():
    return []
