"""Bucket indices: floor(x * buckets) clamped to [0, buckets - 1], converted with .to(torch.int64)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, buckets: int):
        super().__init__()
        self.buckets = buckets

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = torch.floor(torch.sigmoid(x) * self.buckets).clamp(0, self.buckets - 1)
        return b.to(torch.int64)


batch_size = 8
channels = 16
dim = 1024
buckets = 32
TAIL = {"batch_size": 3, "channels": 5, "dim": 999}


def get_inputs():
    return [torch.randn(batch_size, channels, dim)]


def get_init_inputs():
    return [buckets]
