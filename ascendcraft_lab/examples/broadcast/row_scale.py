"""Each row scaled by its own factor (shape (batch_size, 1)), then a one-element shift (shape (1,))."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
        return x * scale + shift


batch_size = 256
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, 1), torch.randn(1)]


def get_init_inputs():
    return []
