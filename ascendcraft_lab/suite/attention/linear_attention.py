"""Linear attention (Katharopoulos et al.): phi(q) @ (phi(k)^T @ v), phi(x) = elu(x) + 1, no softmax."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        kv = (F.elu(k) + 1.0).transpose(-2, -1) @ v
        return (F.elu(q) + 1.0) @ kv


batch = 2
heads = 2
seq = 96
head_dim = 32
TAIL = {"batch": 1, "seq": 43}


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape) * 0.5, torch.randn(shape) * 0.5, torch.randn(shape) * 0.5]


def get_init_inputs():
    return []
