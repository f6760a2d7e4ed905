"""A linear layer's epilogue: its learned bias (an nn.Parameter of shape (out_features,)) added to
every row of the matmul's result, then GELU (tanh approximation)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, out_features: int):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x + self.bias, approximate="tanh")


batch_size = 128
out_features = 1024
TAIL = {"batch_size": 37, "out_features": 1003}


def get_inputs():
    return [torch.randn(batch_size, out_features)]


def get_init_inputs():
    return [out_features]
