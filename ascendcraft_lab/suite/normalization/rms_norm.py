"""RMS normalisation over the feature dim (dim 1) of a 4-D tensor: x / sqrt(mean(x^2, dim=1) + eps)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)
        return x / rms


batch_size = 16
features = 64
dim1 = 256
dim2 = 256
TAIL = {"batch_size": 5, "features": 13, "dim1": 37, "dim2": 45}


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
