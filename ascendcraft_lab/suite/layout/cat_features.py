"""torch.cat of two feature sets along the last axis: x of shape (batch_size, dim_a) beside
tanh(y), y of shape (batch_size, dim_b); each part is stored at its column offset."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.cat([x * 2.0, torch.tanh(y)], dim=-1)


batch_size = 128
dim_a = 1024
dim_b = 512
TAIL = {"batch_size": 5, "dim_a": 37, "dim_b": 11}


def get_inputs():
    return [torch.randn(batch_size, dim_a), torch.randn(batch_size, dim_b)]


def get_init_inputs():
    return []
