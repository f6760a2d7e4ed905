"""A projection scaled and clamped: torch.clamp(F.linear(x, W, b) * 0.5, -1.0, 1.0)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * 0.1)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(F.linear(x, self.weight, self.bias) * 0.5, min=-1.0, max=1.0)


batch_size = 128
in_features = 224
out_features = 160
TAIL = {"batch_size": 45, "in_features": 83, "out_features": 57}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
