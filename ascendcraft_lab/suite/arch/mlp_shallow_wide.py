"""A shallow, wide MLP: Linear(in, 1024) -> GELU (tanh form) -> Linear(1024, out)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.GELU(approximate="tanh"),
                                 nn.Linear(hidden, out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


batch_size = 48
in_features = 96
hidden = 1024
out_features = 40
TAIL = {"batch_size": 5, "in_features": 33, "hidden": 300, "out_features": 17}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
