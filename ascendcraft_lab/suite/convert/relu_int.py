"""Tensor.int() of a ReLU of a sum: a non-negative count truncated to int32."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu((a + b) * 8.0).int()


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
