"""A per-feature bias of shape (dim,) over a 3-D activation (batch_size, seq_len, dim), then ReLU:
the bias is broadcast over two leading axes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + bias)


batch_size = 16
seq_len = 128
dim = 768
TAIL = {"batch_size": 3, "seq_len": 37, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim), torch.randn(dim)]


def get_init_inputs():
    return []
