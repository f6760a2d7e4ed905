import torch
import torch.nn as nn


class Model(nn.Module):
    """LeakyReLU with a fixed negative slope."""

    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 16
dim = 4093  # rows of 4093 floats: not a whole number of 32-byte blocks


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
