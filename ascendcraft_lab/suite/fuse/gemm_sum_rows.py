"""The row sums of a biased projection: (x @ W^T + b).sum(dim=1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x).sum(dim=1)


batch_size = 64
in_features = 256
out_features = 192
TAIL = {"batch_size": 27, "in_features": 89, "out_features": 61}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
