"""Tensor.repeat along the last axis of a biased input: (x + bias).repeat(1, 3) with x of shape
(batch_size, dim) and bias of shape (dim,); each copy is stored at its column offset."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return (x + bias).repeat(1, 3)


batch_size = 64
dim = 512
TAIL = {"batch_size": 5, "dim": 37}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(dim)]


def get_init_inputs():
    return []
