"""F.group_norm with no weight or bias on a 3-D input (N, C, L): each group of channels normalized, then a GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(F.group_norm(x, self.groups, eps=1e-6))


batch_size = 16
channels = 48
length = 1024
groups = 4
TAIL = {"batch_size": 3, "channels": 20, "length": 1001, "groups": 5}


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [groups]
