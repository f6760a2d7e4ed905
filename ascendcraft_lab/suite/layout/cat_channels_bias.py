"""torch.cat of two feature maps along the channels, the second with a per-channel bias:
cat([a, b + bias.view(1, -1, 1, 1)], dim=1) of (batch_size, ca, h, w) and (batch_size, cb, h, w)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.cat([a, b + bias.view(1, -1, 1, 1)], dim=1)


batch_size = 4
ca = 32
cb = 16
h = 16
w = 16
TAIL = {"batch_size": 3, "ca": 5, "cb": 3, "h": 7, "w": 9}


def get_inputs():
    return [torch.randn(batch_size, ca, h, w), torch.randn(batch_size, cb, h, w), torch.randn(cb)]


def get_init_inputs():
    return []
