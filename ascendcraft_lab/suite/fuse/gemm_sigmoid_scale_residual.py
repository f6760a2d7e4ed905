"""h = x @ W^T + b, then sigmoid(h) * 2.0 + h: an epilogue that reads the product twice."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.gemm(x)
        return torch.sigmoid(h) * 2.0 + h


batch_size = 96
in_features = 128
out_features = 192
TAIL = {"batch_size": 31, "in_features": 47, "out_features": 85}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
