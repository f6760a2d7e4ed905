"""Batched C[b] = A[b] @ B[b] with torch.bmm."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 8
M = 128
K = 96
N = 160
TAIL = {"batch_size": 3, "M": 50, "K": 37, "N": 70}


def get_inputs():
    return [torch.randn(batch_size, M, K), torch.randn(batch_size, K, N)]


def get_init_inputs():
    return []
