"""Concatenated ReLU (CReLU): torch.cat([relu(x), relu(-x)], dim=1), an output twice as wide."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([torch.relu(x), torch.relu(-x)], dim=1)


batch_size = 64
dim = 2048


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
