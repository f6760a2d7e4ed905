"""Softplus with beta and threshold (x where beta * x > threshold)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, beta: float, threshold: float):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x, beta=self.beta, threshold=self.threshold)


batch_size = 16
dim = 16384
beta = 2.0
threshold = 3.0
TAIL = {"batch_size": 13, "dim": 20011}   # the second shape: not a multiple of the tile or of 32 bytes


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [beta, threshold]
