"""aten.native_group_norm as torch.export writes a group norm: (out, mean, rstd), the output used; weight and bias
held as plain tensor attributes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = 1.0 + 0.1 * torch.randn(channels)
        self.bias = 0.1 * torch.randn(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, length = x.shape
        out, mean, rstd = torch.ops.aten.native_group_norm(x, self.weight, self.bias, n, c, length, self.groups, 1e-5)
        return out * 2.0


batch_size = 16
channels = 64
length = 500
groups = 8
TAIL = {"batch_size": 5, "channels": 24, "length": 333, "groups": 6}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [channels, groups]
