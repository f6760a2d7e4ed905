"""torch.where with a broadcast bool mask: cond of shape (1, seq, 1) chooses, per position of the
sequence, between x and y of shape (batch_size, seq, dim)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, cond: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.where(cond, x, y)


batch_size = 16
seq = 256
dim = 64
TAIL = {"batch_size": 3, "seq": 29, "dim": 45}


def get_inputs():
    return [torch.rand(1, seq, 1) > 0.5, torch.randn(batch_size, seq, dim), torch.randn(batch_size, seq, dim)]


def get_init_inputs():
    return []
