"""A transpose that moves the last axis: x.transpose(1, 2) of x (batch, rows, cols), made contiguous."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.transpose(1, 2).contiguous()


batch_size = 4
rows = 300
cols = 200


def get_inputs():
    return [torch.randn(batch_size, rows, cols)]


def get_init_inputs():
    return []
